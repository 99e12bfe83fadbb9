import DocumentPackage

/// What a directory holds, all levels down: the tree's totals line and the size map's areas.
package struct TreeTotals: Sendable, Codable, Equatable {
  /// Regular files.
  package var files = 0
  /// Directories (not counting the directory itself).
  package var directories = 0
  /// Symbolic links.
  package var symlinks = 0
  /// Bytes of the files and links (a link counts its target's length, as `inspect` does).
  package var bytes: Int64 = 0

  /// The totals of every directory under `root` (`root` itself under `""`), by path from `root`, from one walk.
  /// - Throws: What listing a directory throws.
  /// - Complexity: O(*n*) for *n* entries; the walk uses an explicit stack, whatever the depth.
  static func directories(under root: PackageNode) throws -> [String: TreeTotals] {
    var order: [(path: String, kind: NodeKind, size: Int64)] = []
    try root.walk { node, path, _ in
      order.append((path, node.kind, node.size))
      return true
    }
    var totals: [String: TreeTotals] = [:]
    // Children come after their parent in the walk: going backwards, each entry's totals are complete
    // when it is added to its parent's.
    for entry in order.reversed() {
      var own = entry.kind == .directory ? totals[entry.path, default: TreeTotals()] : TreeTotals()
      if entry.kind == .directory { totals[entry.path] = own }
      guard !entry.path.isEmpty else { continue }
      switch entry.kind {
      case .file: own.files = 1
      case .symlink: own.symlinks = 1
      case .directory: own.directories += 1
      }
      if entry.kind != .directory { own.bytes = entry.size }
      let parent = entry.path.lastIndex(of: "/").map { String(entry.path[..<$0]) } ?? ""
      totals[parent, default: TreeTotals()].add(own)
    }
    return totals
  }

  private mutating func add(_ other: TreeTotals) {
    files += other.files
    directories += other.directories
    symlinks += other.symlinks
    bytes += other.bytes
  }
}
