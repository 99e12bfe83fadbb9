import SystemPackage

extension PackageNode {
  /// The smallest subtree that holds every change made in memory: the deepest node that is an
  /// ancestor of (or is) every node with edits or without an origin. `nil` when nothing changed.
  ///
  /// A new or moved node always marks its directory (`.membership`), so the result is a node
  /// that exists on disk at its model path, and replacing just it makes the whole package new.
  /// - Complexity: O(*n*) in the loaded nodes.
  var changeRoot: PackageNode? {
    var common: [PackageNode]? = nil  // the ancestor chain, root first, of the common ancestor
    func note(_ node: PackageNode) {
      var chain: [PackageNode] = []
      var current: PackageNode? = node
      while let n = current {
        chain.append(n)
        if n === self { break }
        current = n.parent
      }
      chain.reverse()
      guard let previous = common else {
        common = chain
        return
      }
      var length = 0
      while length < min(previous.count, chain.count) && previous[length] === chain[length] { length += 1 }
      common = Array(previous[..<length])
    }
    var pending: [PackageNode] = [self]  // an explicit stack: the depth is the package's
    while let node = pending.popLast() {
      if node.origin == nil || !node.edits.isEmpty {
        note(node)
        if node.origin == nil { continue }  // everything below a new node is new too
      }
      pending.append(contentsOf: node.loadedChildren?.values ?? [:].values)
    }
    return common?.last
  }

  /// After a save wrote this node (and what is below it) at `relativePath` of `location`:
  /// points every loaded node at its saved file, with fresh status, and forgets the edits, so
  /// the model reads as unchanged and the next save is incremental again.
  ///
  /// Contents set in memory are kept as the cached contents; contents from a source are
  /// read from the saved file from now on.
  /// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes.
  func rebase(location: PackageLocation, relativePath: FilePath) {
    var pending: [(node: PackageNode, relativePath: FilePath)] = [(self, relativePath)]  // not recursion: see `walk`
    while let (node, relativePath) = pending.popLast() {
      let path = relativePath.isEmpty ? location.root : location.root.pushing(relativePath)
      guard let status = try? Syscalls.statusNoFollow(path) else { continue }  // keep edits: saved again next time
      node.rebase(to: DiskOrigin(location: location, relativePath: relativePath, status: status))
      for child in node.loadedChildren?.values ?? [:].values {
        pending.append((child, relativePath.appending(child.diskComponent)))
      }
    }
  }

  /// Points this node alone at its saved file (`origin`) and forgets its edits.
  private func rebase(to origin: DiskOrigin) {
    self.origin = origin
    if kind == .file {
      switch fileBody {
      case .data(let data): cachedContents = data
      case .source: cachedContents = nil
      case .onDisk: break
      }
      fileBody = .onDisk
    }
    storedPermissions = origin.status.permissions
    storedModificationTime = origin.status.modificationTime
    edits = []
  }

  /// The name on disk as a path component (see ``diskName``).
  var diskComponent: FilePath.Component {
    if let last = origin?.relativePath.lastComponent, last.string == name { return last }
    return diskName.component ?? FilePath.Component(name)!
  }
}
