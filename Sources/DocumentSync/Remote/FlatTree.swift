import DocumentPackage

/// A state flattened to `path → entry` (directories included, so empty ones are kept), for three-way merging
/// and applying. A directory's entry names no tree (its reference is empty): its contents are its own paths.
typealias FlatTree = [String: TreeEntry]

extension FlatTree {
  /// Flattens the tree `root` found in `trees` (the ``StoredTreeWalk`` of every path); `name` says which state it is
  /// ("the head") when a tree is missing.
  /// - Throws: ``SyncError`` with code `corrupt` naming a tree object that is not in `trees`, and where it was met.
  init(root: String, named name: String, trees: [String: TreeObject]) throws {
    self.init()
    var walk = StoredTreeWalk<Void>(.eachPath, roots: [.init(name: name, hash: root)])
    while let step = walk.next() {
      guard case .enter(let at) = step else { continue }
      guard let tree = trees[at.hash] else {
        throw SyncError(.corrupt, "missing tree object (\(walk.damage().place))", key: "trees/\(at.hash)")
      }
      let prefix = walk.path
      for (name, entry) in tree.entries {
        let path = prefix.isEmpty ? name : "\(prefix)/\(name)"
        if entry.kind == .directory {
          var directory = entry
          directory.reference = ""
          self[path] = directory
        } else {
          self[path] = entry
        }
      }
      walk.descend(into: tree.subdirectories)
    }
  }
}

extension TreeEntry {
  /// The entry without its time: what a merge compares to tell a change of contents from a touch.
  var contents: TreeEntry {
    var entry = self
    entry.time = TreeEntry.directoryTime
    return entry
  }
}
