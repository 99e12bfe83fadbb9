import SystemPackage

/// What a model (a package file's or a document's) changed in memory since it loaded (or last saved) the package, as entries:
/// each file, link or empty new directory set at a path, and each path removed. With each, what
/// was at that path when it was loaded (its `lstat`), to tell whether another writer changed it since.
struct OwnChanges {
  struct Change {
    var path: String
    /// The node to put at `path`; `nil` to remove what is there.
    var node: PackageNode?
    /// What was at `path` when loaded; `nil` if nothing was.
    var base: FileStatus?
    /// For a file or link the model moved or renamed (itself or a folder above it): where it was loaded, and
    /// its `lstat` there. Another writer's change there is a change of this entry too.
    var from: (path: String, base: FileStatus)? = nil
  }

  var changes: [Change] = []

  init(of root: PackageNode) throws {
    guard let location = root.origin?.location else { return }
    var loaded: [String: FileStatus] = [:]
    var present = Set<String>()
    func note(_ node: PackageNode) {
      if let origin = node.origin, origin.location === location { loaded[origin.relativePath.string] = origin.status }
    }
    func collect(_ node: PackageNode) {
      note(node)
      for child in node.heldChildren?.values ?? [:].values { collect(child) }
    }
    collect(root)
    for node in location.detachedNodes { collect(node) }

    func visit(_ node: PackageNode, _ path: String, new: Bool) {
      present.insert(path)
      let moved = node.origin.map { $0.relativePath.string != path } ?? false
      let isNew = new || node.origin == nil || moved
      if node.kind == .directory {
        let children = node.heldChildren ?? [:]
        if isNew && children.isEmpty && !path.isEmpty {
          changes.append(Change(path: path, node: node, base: loaded[path]))
        }
        for (name, child) in children { visit(child, path.isEmpty ? name : path + "/" + name, new: isNew) }
      } else if isNew || !node.edits.isEmpty {
        var change = Change(path: path, node: node, base: loaded[path])
        if moved, let origin = node.origin, origin.location === location {
          change.from = (origin.relativePath.string, origin.status)
        }
        changes.append(change)
      }
    }
    visit(root, "", new: false)
    // Removed: loaded paths no longer in the tree (detached nodes and what moved away).
    for (path, status) in loaded where !present.contains(path) && !path.isEmpty {
      if let parent = Self.parentPath(path), !present.contains(parent) && loaded[parent] != nil { continue }
      changes.append(Change(path: path, node: nil, base: status))
    }
    changes.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
  }

  /// The parent's path; `nil` for a top-level entry.
  static func parentPath(_ path: String) -> String? {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
    return String(path[..<slash])
  }
}
