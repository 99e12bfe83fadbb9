import SystemPackage

extension PackageFile {
  /// The package's version store (previous states and conflict versions).
  /// - Throws: As ``VersionStore/init(forPackageAt:)``.
  public func versionStore() throws -> VersionStore {
    try VersionStore(packagePath: path, lockHeld: lock != nil)
  }

  /// The unresolved conflict versions: while there are any, the package is "in conflict".
  /// - Throws: As ``VersionStore/versions()``.
  public func unresolvedConflicts() throws -> [PackageVersion] {
    try versionStore().unresolvedConflicts()
  }

  /// Replaces the package with version `id`, atomically (an in-place save of the version's tree,
  /// every blob checked against its hash), keeping the replaced state as a version. The package file
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
    let versions = versionKeeping(store: try VersionStore(packagePath: path, lockHeld: true))
    let tree = try versions.store().tree(of: id)
    var saver = try Saver(target: path, root: tree)
    saver.owner = saveOwner
    saver.versions = versions
    saver.exchangeUnsupported = exchangeUnsupported
    defer { exchangeUnsupported = saver.exchangeUnsupported }
    try saver.saveWhole(rebasing: true)
    versions.didSave()
    root = tree
  }

  /// Settles the package's conflicts: keeps the current package (`keeping` nil) or restores the
  /// version `keeping` (see ``restoreVersion(_:)``), then marks every unresolved conflict version
  /// resolved. To keep a merge of both, edit ``root``, save with
  /// ``SaveOptions/overwritingOutsideChanges``, then call this with nil.
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
  /// - Parameter store: The version store, if the caller opened it for this save already.
  func saveLocked(_ tree: PackageNode, store: VersionStore? = nil) throws {
    let versions = versionKeeping(store: store)
    var saver = try Saver(target: path, root: tree)
    saver.owner = saveOwner
    saver.versions = versions
    saver.exchangeUnsupported = exchangeUnsupported
    defer { exchangeUnsupported = saver.exchangeUnsupported }
    try saver.saveInPlace()
    versions.didSave()
  }

  /// What an in-place save does with the version store, per ``versionPolicy``,
  /// ``defersVersionCopies`` and ``willReplacePreviousState``.
  func versionKeeping(store: VersionStore? = nil) -> VersionKeeping {
    defer { previousStateHolding = nil }
    return VersionKeeping(
      packagePath: path, policy: versionPolicy, defersCopies: defersVersionCopies, appHook: willReplacePreviousState,
      holding: previousStateHolding, store: store)
  }
}
