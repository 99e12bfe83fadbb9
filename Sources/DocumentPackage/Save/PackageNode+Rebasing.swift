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
      node.appendLoadedChildren(to: &pending)
    }
    return common?.last
  }

  /// After a save wrote this node (and what is below it) at `relativePath` of `location`:
  /// points every loaded node at its saved file, with fresh status, and forgets the edits, so
  /// the model reads as unchanged and the next save is incremental again.
  ///
  /// Contents set in memory are kept as the cached contents; contents from a source are
  /// read from the saved file from now on.
  /// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes. A node already at its place in
  ///   `location` keeps its origin's path (only the status is new); a path is built only for the
  ///   others. The `lstat` path is extended from its directory's, byte by byte, never made a
  ///   `FilePath` per node (`FilePath` checks the whole path each time it is made or extended,
  ///   which made a one-file save 1,000 directories deep take minutes).
  func rebase(location: PackageLocation, relativePath: FilePath) {
    // Each pending node with its directory's path in the package (nil: the node keeps its
    // origin's, its directory kept its own and gained no moved-in children), its name there,
    // and its directory's absolute path as bytes (no terminator). Not recursion: see `walk`.
    struct Pending {
      let node: PackageNode
      let directory: FilePath?
      let name: FilePath.Component?
      let parentBytes: [CChar]
    }
    let top =
      relativePath.isEmpty
      ? location.root : relativePath.withPlatformString { DiskOrigin.joined(location.root, $0) }
    let inPlace = origin.map { $0.location === location && $0.relativePath == relativePath } == true
    var pending = [
      Pending(
        node: self, directory: inPlace ? nil : relativePath.removingLastComponent(), name: relativePath.lastComponent,
        parentBytes: Self.bytes(of: top.removingLastComponent()))
    ]
    let topName = top.lastComponent
    while let entry = pending.popLast() {
      let node = entry.node
      let name = entry.node === self ? topName : entry.name
      let kept = entry.directory == nil ? node.origin : nil
      let bytes = name.map { Self.bytes(entry.parentBytes, appending: $0) } ?? entry.parentBytes
      guard let status = Self.statusNoFollow(bytes) else { continue }  // keep edits: saved again next time
      let origin: DiskOrigin
      if var kept {
        kept.status = status
        origin = kept
      } else {
        origin = DiskOrigin(location: location, directory: entry.directory!, name: entry.name, status: status)
      }
      let movedIn = node.edits.contains(.membership)
      node.rebase(to: origin)
      guard let children = node.heldChildren, !children.isEmpty else { continue }
      let childDirectory = kept == nil || movedIn ? origin.relativePath : nil
      for child in children.values {
        let component = child.diskComponent
        let keeps =
          childDirectory == nil && child.origin.map { $0.location === location && $0.name == component } == true
        pending.append(
          Pending(
            node: child, directory: keeps ? nil : (childDirectory ?? origin.relativePath), name: component,
            parentBytes: bytes))
      }
    }
    // The root re-based (a whole save's new root, or the same one): its birth, for `loadedRootIdentity`.
    if relativePath.isEmpty, parent == nil, kind == .directory { location.loadedRoot = RootIdentity.at(location.root) }
  }

  /// The bytes of `path` (no terminator).
  private static func bytes(of path: FilePath) -> [CChar] {
    path.withPlatformString { pointer in
      let count = path.length
      return [CChar](unsafeUninitializedCapacity: count) { buffer, initialized in
        buffer.baseAddress!.update(from: pointer, count: count)
        initialized = count
      }
    }
  }

  /// `directory` and `name` joined by `/`, as bytes (no terminator); `name` alone for an empty
  /// `directory` (the folder of a package opened by a bare name, `P.mydoc`: the current one), which
  /// a `/` would make the root of the file system's.
  private static func bytes(_ directory: [CChar], appending name: FilePath.Component) -> [CChar] {
    name.withPlatformString { pointer in
      let nameCount = String(cString: pointer).utf8.count
      let separator = directory.isEmpty ? 0 : 1
      let count = directory.count + separator + nameCount
      return [CChar](unsafeUninitializedCapacity: count) { buffer, initialized in
        let start = buffer.baseAddress!
        directory.withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: directory.count) }
        if separator == 1 { start[directory.count] = CChar(UInt8(ascii: "/")) }
        (start + directory.count + separator).update(from: pointer, count: nameCount)
        initialized = count
      }
    }
  }

  /// `lstat` of the absolute path `bytes` (a path too long for one call is made a `FilePath`).
  private static func statusNoFollow(_ bytes: [CChar]) -> FileStatus? {
    var terminated = bytes
    terminated.append(0)
    if bytes.count < 4_000 {
      return terminated.withUnsafeBufferPointer { try? Syscalls.statusNoFollow(cString: $0.baseAddress!) }
    }
    return terminated.withUnsafeBufferPointer {
      try? Syscalls.statusNoFollow(FilePath(platformString: $0.baseAddress!))
    }
  }

  /// Points this node alone at its saved file (`origin`) and forgets its edits.
  ///
  /// A new entry starts a new ``diskGeneration``: a file whose bytes the save wrote (not carried
  /// from its origin), a directory or link of another inode than its origin's. The inode numbers
  /// compared here are exact: the saved entry was made while the origin's was still in place, so
  /// they cannot be one number given twice.
  private func rebase(to origin: DiskOrigin) {
    var origin = origin
    if kind == .file, case .onDisk = fileBody, !edits.contains(.attributes), let was = self.origin?.status,
      was.size != origin.status.size || was.modificationTime != origin.status.modificationTime
    {
      // Carried as it was (a link, or a copy with its time), yet another size or time: another program wrote it
      // since the save linked it. The model keeps what it loaded as the saved state, so the write shows as an
      // outside change (`Document+OwnSaveGap`), not as what this save made.
      origin.status = was
    }
    var newEntry: Bool
    if let was = self.origin?.status {
      newEntry = was.device != origin.status.device || was.inode != origin.status.inode
    } else {
      newEntry = true
    }
    self.origin = origin
    if kind == .file {
      switch fileBody {
      case .data(let data):
        cachedContents = data
        newEntry = true
      case .source:
        cachedContents = nil
        newEntry = true
      case .onDisk:
        newEntry = false  // carried: a link, or a copy of the same bytes where links are refused
      }
      fileBody = .onDisk
    }
    if newEntry { diskGeneration &+= 1 }
    storedPermissions = origin.status.permissions
    storedModificationTime = origin.status.modificationTime
    edits = []
    probedRemovals = nil  // saved: the names are gone on disk
  }

  /// The name on disk as a path component (see ``diskName``).
  var diskComponent: FilePath.Component {
    if let last = origin?.name, last.string == name { return last }
    return diskName.component ?? FilePath.Component(name)!
  }
}
