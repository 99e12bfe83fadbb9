import DocumentPackage

/// The areas of the size map for one directory: each entry with what it holds, all levels down. The page lays
/// them out as a treemap and drills down by asking for a child directory's map.
package struct SizeMap: Sendable, Codable, Equatable {
  /// One area.
  package struct Area: Sendable, Codable, Equatable {
    /// The entry's name.
    package var name: String
    /// Its path from the root.
    package var path: String
    /// Its kind.
    package var kind: NodeKind
    /// Its bytes, all levels down.
    package var bytes: Int64
    /// Files in it, all levels down (1 for a file).
    package var files: Int
  }

  /// The directory's path.
  package var path: String
  /// Its totals.
  package var totals: TreeTotals
  /// Its entries, largest first; at most ``limit`` of them, the rest summed in ``others``.
  package var areas: [Area]
  /// Bytes of the entries left out of `areas`.
  package var others: Int64

  /// The most areas one map holds: more would be too small to see.
  static let limit = 400

  /// The map of the directory at `path`, from the totals of the tree's directories.
  /// - Throws: ``/DocumentPackage/PackageError`` when `path` is not a directory of the tree.
  package init(of root: PackageNode, at path: String, totals: [String: TreeTotals]) throws {
    let directory = try root.node(at: path)
    guard directory.kind == .directory, let own = totals[path] else {
      throw PackageError(.notADirectory, "not a directory:", path: path, context: "(it is a \(directory.kind))")
    }
    let prefix = path.isEmpty ? "" : path + "/"
    let all = try directory.sortedChildren().map { child -> Area in
      let childPath = prefix + child.name
      let inside = child.kind == .directory ? totals[childPath] ?? TreeTotals() : nil
      return Area(
        name: child.name, path: childPath, kind: child.kind, bytes: inside?.bytes ?? child.size,
        files: inside?.files ?? (child.kind == .file ? 1 : 0))
    }
    .sorted { $0.bytes > $1.bytes }
    self.path = path
    self.totals = own
    areas = Array(all.prefix(Self.limit))
    others = all.dropFirst(Self.limit).reduce(0) { $0 + $1.bytes }
  }
}
