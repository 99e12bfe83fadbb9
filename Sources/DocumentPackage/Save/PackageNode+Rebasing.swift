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
    func visit(_ node: PackageNode) {
      if node.origin == nil || !node.edits.isEmpty {
        note(node)
        if node.origin == nil { return }  // everything below a new node is new too
      }
      for child in node.loadedChildren?.values ?? [:].values { visit(child) }
    }
    visit(self)
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
    let path = relativePath.isEmpty ? location.root : location.root.pushing(relativePath)
    guard let status = try? Syscalls.statusNoFollow(path) else { return }  // keep edits: saved again next time
    origin = DiskOrigin(location: location, relativePath: relativePath, status: status)
    if kind == .file {
      switch fileBody {
      case .data(let data): cachedContents = data
      case .source: cachedContents = nil
      case .onDisk: break
      }
      fileBody = .onDisk
    }
    if let children = loadedChildren {
      for child in children.values {
        let component = child.diskComponent
        child.rebase(location: location, relativePath: relativePath.appending(component))
      }
    }
    storedPermissions = status.permissions
    storedModificationTime = status.modificationTime
    edits = []
  }

  /// The name on disk as a path component (see ``diskName``).
  var diskComponent: FilePath.Component {
    if let last = origin?.relativePath.lastComponent, last.string == name { return last }
    return FilePath.Component(name)!
  }
}
