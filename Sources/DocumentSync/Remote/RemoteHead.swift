import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The remote's head object (`PREFIX/head`): the root tree of the package's current state on the remote, the
/// root tree it replaced, and when. It is the only object ever overwritten, and only by a conditional PUT on its
/// ETag (`If-Match`, or `If-None-Match: *` for the first push), so two pushes can never both win.
///
///     docpkg-sync-head 2
///     tree 3f7a…       (64 hex digits: trees/3f7a…)
///     parent 9c01…     (the tree it replaced; `-` for the first push)
///     generation 42    (one more than the head it replaced: 1 for the first push; absent before issue 39: 0)
///     date 1764000000  (seconds since 1970, the pusher's clock: informative only)
///     conflict 5d2e… 1764000000 Index.json Notes/a.txt   (one per unresolved conflict version, if any)
///
/// The generation is what protects a device from a head put back (RemoteRollback.swift): a device remembers the
/// generation of the last head it took and refuses an older one. An encrypted remote's head is sealed, so only a
/// device with the key writes one; a plain remote's is as trustworthy as whoever can write the bucket.
///
/// The first line is also the remote layout's format: 2 since trees are the version store's (`TreeObject`: lines
/// with modification times). A remote of another format is refused with one line saying so, never misread.
package struct RemoteHead: Sendable, Hashable {
  /// The root tree of the remote's state.
  package var tree: String
  /// The root tree this head replaced, if any.
  package var parent: String?
  /// How many heads the remote's history had up to this one: the replaced head's generation plus one (0 for a head
  /// written before generations were).
  package var generation: Int
  /// When it was pushed (the pusher's clock).
  package var date: Date
  /// The unresolved conflict versions of the state, by root tree (its objects are on the remote too).
  package var conflicts: [RemoteConflict]

  /// A head.
  package init(tree: String, parent: String?, generation: Int = 0, date: Date, conflicts: [RemoteConflict] = []) {
    self.tree = tree
    self.parent = parent
    self.generation = generation
    self.date = date
    self.conflicts = conflicts.sorted { $0.tree < $1.tree }
  }

  /// The root trees of ``conflicts``.
  var conflictTrees: Set<String> { Set(conflicts.map(\.tree)) }

  /// The remote layout's format this release reads and writes.
  static let format = 2

  /// The object's bytes.
  package func encoded() -> Data {
    var text =
      "docpkg-sync-head \(Self.format)\ntree \(tree)\nparent \(parent ?? "-")\n"
      + (generation > 0 ? "generation \(generation)\n" : "") + "date \(Int64(date.timeIntervalSince1970))\n"
    for conflict in conflicts {
      text += "conflict \(conflict.tree) \(Int64(conflict.date.timeIntervalSince1970))"
      for path in conflict.paths { text += " " + VersionEscaping.escape(path) }
      text += "\n"
    }
    return Data(text.utf8)
  }

  /// Parses a head object.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if it is not one.
  package init(decoding data: Data, key: String) throws {
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard let first = lines.first, first.hasPrefix("docpkg-sync-head "),
      let format = Int(first.dropFirst("docpkg-sync-head ".count))
    else {
      throw SyncError(.corrupt, "not a docpkg sync head (another program's data?)", key: key)
    }
    guard format == Self.format else {
      let which =
        format < Self.format
        ? "an older docpkg's (remote format \(format); this docpkg reads format \(Self.format) only): push to a new prefix, or use that docpkg;"
        : "a newer docpkg's (remote format \(format); this docpkg reads format \(Self.format)): update docpkg;"
      throw SyncError(.remote, "the remote's layout is \(which) head", key: key)
    }
    var tree: String?
    var parent: String?
    var generation = 0
    var date = Date(timeIntervalSince1970: 0)
    var conflicts: [RemoteConflict] = []
    for line in lines.dropFirst() {
      if line.hasPrefix("conflict ") {
        let fields = VersionEscaping.fields(line)
        guard fields.count >= 3, ContentHash.isValid(fields[1]), let seconds = Double(fields[2]) else {
          throw SyncError(.corrupt, "malformed conflict line in head object", key: key)
        }
        conflicts.append(
          RemoteConflict(
            tree: String(fields[1]), date: Date(timeIntervalSince1970: seconds),
            paths: fields.dropFirst(3).map { VersionEscaping.unescape($0) }))
        continue
      }
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { continue }
      switch parts[0] {
      case "tree": tree = String(parts[1])
      case "parent": parent = parts[1] == "-" ? nil : String(parts[1])
      case "generation":
        guard let number = Int(parts[1]), number > 0 else {
          throw SyncError(.corrupt, "malformed generation line in head object", key: key)
        }
        generation = number
      case "date": date = Date(timeIntervalSince1970: Double(parts[1]) ?? 0)
      default: break  // later versions may add lines
      }
    }
    guard let tree, tree.count == 64 else { throw SyncError(.corrupt, "head object names no tree", key: key) }
    self.init(tree: tree, parent: parent, generation: generation, date: date, conflicts: conflicts)
  }
}

/// An unresolved conflict version a head lists: its root tree (its identity on every device), when it was kept,
/// and the entries both sides changed.
package struct RemoteConflict: Sendable, Hashable {
  /// The conflict version's root tree.
  package var tree: String
  /// When it was kept (the keeping device's clock).
  package var date: Date
  /// The entries both sides changed.
  package var paths: [String]

  /// A conflict.
  package init(tree: String, date: Date, paths: [String]) {
    self.tree = tree
    self.date = date
    self.paths = paths
  }
}
