import DocumentPackage

/// A state flattened to `path → entry` (directories included, so empty ones are kept), for three-way merging
/// and applying. A directory's entry names no tree (its reference is empty): its contents are its own paths.
typealias FlatTree = [String: TreeEntry]

extension FlatTree {
  /// Flattens the tree `root` found in `trees`.
  /// - Throws: ``SyncError`` with code `corrupt` naming a tree object that is not in `trees`.
  init(root: String, trees: [String: TreeObject]) throws {
    self.init()
    var pending = [(hash: root, prefix: "")]  // an explicit stack: the tree chooses its depth
    while let (hash, prefix) = pending.popLast() {
      guard let tree = trees[hash] else {
        throw SyncError(.corrupt, "missing tree object", key: "trees/\(hash)")
      }
      for (name, entry) in tree.entries {
        let path = prefix.isEmpty ? name : "\(prefix)/\(name)"
        if entry.kind == .directory {
          var directory = entry
          directory.reference = ""
          self[path] = directory
          pending.append((entry.reference, path))
        } else {
          self[path] = entry
        }
      }
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
