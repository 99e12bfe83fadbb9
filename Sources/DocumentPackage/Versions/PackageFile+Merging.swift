import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageFile {
  /// Saves like ``save(options:)``, but when another writer saved the package since this
  /// package file loaded it, merges instead of failing — three-way, the common ancestor being what
  /// this package file loaded:
  ///
  /// - entries only one side changed: the package as the other writer saved it, with this
  ///   package file's changes applied, is saved (``SaveOutcome/merged(paths:)``);
  /// - an entry both sides changed: if both are text and the base is in the ``VersionStore``
  ///   (the other writer's save kept it, found by this package file's load snapshot), the line-wise
  ///   merge (diff3) is taken when the hunks do not overlap;
  /// - otherwise the package keeps the other writer's state, and this package file's state (that
  ///   state with all its edits on top) is kept as an unresolved conflict version
  ///   (``SaveOutcome/conflict(version:paths:)``). Nothing either writer did is lost.
  ///
  /// After `saved` or `merged`, ``root`` is the saved tree (fetch nodes again). After `conflict`
  /// the package file and the package are unchanged; reopen it to edit the current state.
  /// - Throws: As ``save(options:)``, never `conflict`.
  /// - Complexity: As ``save(options:)``, plus O(*c*) `lstat`s for *c* changed entries.
  public func saveMerging() throws -> SaveOutcome {
    let heldLock = try lock ?? PackageLock(forPackageAt: path)
    defer { withExtendedLifetime(heldLock) {} }
    _ = try Self.recover(path, locked: heldLock)
    if outsideChanges().isEmpty {
      try saveLocked(root)
      return .saved
    }
    let current = try PackageNode(contentsOf: path)
    let store = try? VersionStore(packagePath: path, lockHeld: true)
    let merge = PackageMerge(try OwnChanges(of: root), into: current, packagePath: path, store: store)
    if merge.conflicts.isEmpty {
      try saveLocked(current, store: store)
      root = current
      return .merged(paths: merge.mergedPaths)
    }
    merge.applyConflicts(to: current)
    let version = try (store ?? VersionStore(packagePath: path, lockHeld: true)).keep(
      current, origin: .conflict, conflictPaths: merge.conflictPaths)
    return .conflict(version: version.id, paths: merge.conflictPaths)
  }

  /// A copy of `node` (and what is below it) that belongs to no tree, reading what it did.
  /// - Throws: ``PackageError`` naming the first entry that cannot be read.
  static func detachedCopy(of node: PackageNode) throws -> PackageNode {
    try detachedCopy(of: node) { _, error in throw error }
  }

  /// A copy of `node` with what can still be read: an entry that cannot (a directory never
  /// listed, or a file never read, gone from disk with its package) is left out of the copy and
  /// named in `leftOut` (its ``PackageNode/path``, sorted), rather than failing the copy.
  static func carriedCopy(of node: PackageNode) throws -> (copy: PackageNode, leftOut: [String]) {
    var leftOut: [String] = []
    let copy = try detachedCopy(of: node) { entry, _ in leftOut.append(entry.path) }
    return (copy, leftOut.sorted())
  }

  /// The copy of ``detachedCopy(of:)``, calling `unreadable` for each entry that cannot be read,
  /// which is then left out (`node` itself, when it cannot be listed, is copied empty). (An
  /// explicit stack of the directories still to copy, not recursion: the depth is the package's.)
  private static func detachedCopy(
    of node: PackageNode, unreadable: (PackageNode, any Error) throws -> Void
  ) throws -> PackageNode {
    func children(of directory: PackageNode) throws -> [PackageNode]? {
      do { return try directory.sortedChildren() } catch {
        try unreadable(directory, error)
        return nil
      }
    }
    let top = try copyAlone(node)
    var pending: [(children: [PackageNode], copy: PackageNode)] = []
    if node.kind == .directory, let listed = try children(of: node) { pending.append((listed, top)) }
    while let (originals, copy) = pending.popLast() {
      for child in originals {
        let childCopy: PackageNode
        do { childCopy = try copyAlone(child) } catch {
          try unreadable(child, error)
          continue
        }
        if child.kind == .directory {
          guard let listed = try children(of: child) else { continue }
          pending.append((listed, childCopy))
        }
        try copy.adopt(childCopy, as: child.name)
      }
    }
    return top
  }

  /// A copy of `node` alone: a directory without its children.
  private static func copyAlone(_ node: PackageNode) throws -> PackageNode {
    let copy: PackageNode
    switch node.kind {
    case .file:
      switch node.fileBody {
      case .data(let data): copy = PackageNode(regularFileWithContents: data)
      case .source(let source): copy = PackageNode(regularFileWithSource: source)
      case .onDisk:
        if let cached = node.cachedContents {
          copy = PackageNode(regularFileWithContents: cached)
        } else if let origin = node.origin {
          copy = PackageNode(regularFileWithSource: try DiskFileSource(path: origin.absolutePath))
        } else {
          copy = PackageNode(regularFileWithContents: Data())
        }
      }
    case .symlink:
      copy = PackageNode(symbolicLinkWithDestination: node.symbolicLinkDestination)
    case .directory:
      copy = try PackageNode(directoryWithChildren: [:])
    }
    copy.permissions = node.permissions
    copy.modificationTime = node.modificationTime
    return copy
  }
}

extension VersionStore {
  /// The contents of a file as it was when some version kept it, found by the file's load
  /// snapshot (device, inode, size, time); `nil` if no version has it.
  func contents(matching status: FileStatus) -> Data? {
    settleIfPending()  // a deferred save's replaced files are known by hash once settled
    guard exists, let hash = HashCache(path: hashesPath).hash(for: HashCache.Key(status)) else { return nil }
    return try? VersionBlob(store: self, hash: hash, size: status.size).readAll()
  }
}
