import DocumentPackage
import SystemPackage

/// A page of a directory's entries, sorted and filtered: what the tree shows when a folder opens. A directory of
/// 10,000 entries is listed once (the model keeps it) and sent a page at a time.
package struct DirectoryListing: Sendable, Codable, Equatable {
  /// How the page orders entries.
  package enum Order: String, Sendable, Codable {
    /// By name (byte order of UTF-8, as `inspect` lists).
    case name
    /// Largest first, then by name.
    case size
  }

  /// The directory's path.
  package var path: String
  /// Entries that pass the filter, in all.
  package var total: Int
  /// The index of the first entry of this page among them.
  package var offset: Int
  /// This page's entries.
  package var entries: [EntrySummary]

  /// The entries of the directory at `path` below `root` whose names contain `filter` (any case; directories
  /// always pass, so that their files can be reached), ordered by `order`, from `offset`, at most `limit`.
  /// - Throws: ``/DocumentPackage/PackageError`` `noSuchEntry`, or `notADirectory` for a file or a link (a link to a
  ///   directory is not followed).
  package init(
    of root: PackageNode, at path: String, order: Order, filter: String, offset: Int, limit: Int
  ) throws {
    let directory = try root.node(at: path)
    guard directory.kind == .directory else {
      throw PackageError(.notADirectory, "not a directory:", path: path, context: "(it is a \(directory.kind))")
    }
    var children = try directory.sortedChildren()
    if !filter.isEmpty {
      let needle = filter.lowercased()
      children = children.filter { $0.kind == .directory || $0.name.lowercased().contains(needle) }
    }
    if order == .size {
      children.sort { $0.size != $1.size ? $0.size > $1.size : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
    self.path = path
    total = children.count
    self.offset = min(offset, children.count)
    let prefix = path.isEmpty ? "" : path + "/"
    entries = children[self.offset..<min(children.count, self.offset + limit)].map {
      EntrySummary($0, path: prefix + $0.name)
    }
  }
}
