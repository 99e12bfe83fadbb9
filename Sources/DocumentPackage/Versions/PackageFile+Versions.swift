import SystemPackage

extension PackageFile {
  /// The package's version store (previous states and conflict versions).
  /// - Throws: As ``VersionStore/init(forPackageAt:)``.
  public func versionStore() throws -> VersionStore {
    try VersionStore(packagePath: path, lockHeld: lock != nil)
  }

  /// The unresolved conflict versions: while there are any, the document is "in conflict".
  /// - Throws: As ``VersionStore/versions()``.
  public func unresolvedConflicts() throws -> [PackageVersion] {
    try versionStore().unresolvedConflicts()
  }

  /// Replaces the package with version `id`, atomically (an in-place save of the version's tree,
  /// every blob checked against its hash), keeping the replaced state as a version. The document
  /// then edits the restored package; unsaved changes are dropped.
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version, `corrupt` for a
  ///   blob changed in place, or as ``save(options:)``. After a failure the package is unchanged.
  public func restoreVersion(_ id: Int) throws {
    let heldLock = try lock ?? PackageLock(forPackageAt: path)
    defer { withExtendedLifetime(heldLock) {} }
    try restoreLocked(id, heldLock)
  }

  func restoreLocked(_ id: Int, _ heldLock: PackageLock) throws {
    _ = try Self.recover(path, locked: heldLock)
    let tree = try VersionStore(packagePath: path, lockHeld: true).tree(of: id)
    var saver = try Saver(target: path, root: tree)
    saver.deferredKeeping = deferredKeeping()
    saver.willReplace = previousStateHook(saver.deferredKeeping)
    saver.exchangeUnsupported = exchangeUnsupported
    defer { exchangeUnsupported = saver.exchangeUnsupported }
    try saver.saveWhole(rebasing: true)
    noteSaved()
    root = tree
  }

  /// Settles the document's conflicts: keeps the current package (`keeping` nil) or restores the
  /// version `keeping` (see ``restoreVersion(_:)``), then marks every unresolved conflict version
  /// resolved. To keep a merge of both, edit ``root``, save with
  /// ``SaveOptions/overwritingExternalChanges``, then call this with nil.
  /// - Parameters:
  ///   - id: The version to restore, or nil to keep the current package.
  ///   - removing: Also remove the resolved conflict versions.
  /// - Throws: As ``restoreVersion(_:)``.
  public func resolveConflicts(keeping id: Int? = nil, removing: Bool = false) throws {
    let heldLock = try lock ?? PackageLock(forPackageAt: path)
    defer { withExtendedLifetime(heldLock) {} }
    if let id { try restoreLocked(id, heldLock) }
    let store = try VersionStore(packagePath: path, lockHeld: true)
    var resolved: [Int] = []
    for var record in try store.records() where record.version.origin == .conflict {
      if !record.version.isResolved {
        record.version.isResolved = true
        try store.write(record)
      }
      resolved.append(record.version.id)
    }
    if removing { try store.removeLocked(resolved) }
  }

  /// Saves `tree` in place of the package (the lock is held, recovery done).
  func saveLocked(_ tree: PackageNode) throws {
    var saver = try Saver(target: path, root: tree)
    saver.deferredKeeping = deferredKeeping()
    saver.willReplace = previousStateHook(saver.deferredKeeping)
    saver.exchangeUnsupported = exchangeUnsupported
    defer { exchangeUnsupported = saver.exchangeUnsupported }
    try saver.saveInPlace()
    noteSaved()
  }

  /// The hook a save calls before its swap: the user's ``willReplacePreviousState``, then
  /// keeping the previous state per ``versionPolicy`` (and recording the new root's identity as
  /// pending, so a kill right after the swap still finds the store the package's).
  func previousStateHook(_ deferred: DeferredKeeping?) -> ((FilePath, Bool) throws -> Void)? {
    let user = willReplacePreviousState
    let policy = versionPolicy
    return { packagePath, deferring in
      try user?(packagePath)
      let names = try SiblingNames(of: packagePath)
      let newRoot = try? Syscalls.statusNoFollow(names.path(names.temporary))
      if policy == .none {
        // Keep nothing, but keep an existing store the package's across a root replacement.
        if let store = try? VersionStore(packagePath: packagePath, lockHeld: true), store.exists {
          try store.recordPendingIdentity(newRoot)
        }
        return
      }
      let store = try VersionStore(packagePath: packagePath, lockHeld: true)
      if let deferred, deferring {
        // O(changed): the copies are made when the pending version is settled, which also prunes.
        try deferred.begin(packagePath: packagePath)
        try store.recordPendingIdentity(newRoot)
        return
      }
      try store.keepPackageState()
      try store.recordPendingIdentity(newRoot)
      if case .keepLast(let count) = policy { _ = try store.pruneLocked(keepingLast: count) }
    }
  }

  /// The save's deferred keeping of the previous state, if ``defersVersionCopies`` and the policy
  /// keeps versions.
  func deferredKeeping() -> DeferredKeeping? {
    defersVersionCopies && versionPolicy != .none ? DeferredKeeping(policy: versionPolicy) : nil
  }

  /// After a save: the store's identity is the package's root now (best effort: the pending
  /// identity recorded before the swap already matches).
  func noteSaved() {
    guard let store = try? VersionStore(packagePath: path, lockHeld: true, checkingIdentity: false), store.exists,
      let identity = StoreIdentity.read(from: store.path), let status = try? Syscalls.statusNoFollow(path),
      identity.matches(status)  // only a store that was this package's (pending root included)
    else { return }
    try? store.recordIdentity()
  }
}
