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
    try refuseSavingBesideStrandedSave()
    // The package restored is the one here now: another folder put at its name while the version is read
    // is not written over (nor given its store).
    let replaced = RootIdentity.at(path)
    let versions = versionKeeping(store: try VersionStore(packagePath: path, lockHeld: true))
    let tree = try versions.store().tree(of: id)
    try withSaver(of: tree, versions: versions) { saver in
      saver.replacedRoot = replaced
      try saver.saveWhole(rebasing: true)
    }
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
  /// - Parameters:
  ///   - store: The version store, if the caller opened it for this save already.
  ///   - holding: A remote holding some of the replaced state's files (``save(options:previousStateHolding:)``).
  ///   - guarding: Whether the save keeps what other programs changed (all but a save told to
  ///     overwrite outside changes): just before its commit point it checks that nothing the model of
  ///     `tree` loaded changed on disk while it built the new state (``ChangedWhileSaving``), and after its
  ///     swap it takes back what they made in the rebuilt folders meanwhile (``ReplacedTreeSweep``).
  ///   - sweepingAdditions: Let the check pass folders whose only change is their listing (entries
  ///     added to them: the sweep takes those in; an entry removed or renamed shows as a change of
  ///     its own node), failing only for changed entries the model loaded.
  /// - Returns: The paths of the entries other programs made that the save took back so.
  @discardableResult
  func saveLocked(
    _ tree: PackageNode, store: VersionStore? = nil, holding: RemoteHolding? = nil, guarding: Bool = true,
    sweepingAdditions: Bool = false
  ) throws -> [String] {
    let versions = versionKeeping(store: store, holding: holding)
    var swept: [String] = []
    try withSaver(of: tree, versions: versions) { saver in
      if guarding {
        saver.sweepsReplaced = true
        saver.beforeCommit = { [self] replaced in
          willCheckBeforeCommit?()
          guard let location = tree.origin?.location else { return }
          var changes = OutsideChangeDetector.changes(in: tree, location: location, replacing: replaced)
          if sweepingAdditions {
            changes.removeAll { change in
              change.kind == .modified
                && (try? Syscalls.statusNoFollow(change.path.isEmpty ? path : path.appending(change.path)))?.kind
                  == .directory
            }
          }
          if !changes.isEmpty { throw ChangedWhileSaving(changes: changes) }
        }
      }
      try saver.saveInPlace()
      swept = saver.sweptPaths
      // Listed again when next asked, the folders that gained entries show them.
      for directory in saver.sweptDirectories { directory.forgetListing() }
    }
    return swept
  }

  /// Runs `save` with a saver of `tree` into the package at `target` (this package file's unless
  /// given), told who saves, the keeper of the state it replaces (in-place saves: then told when the
  /// save is done) and what earlier saves learnt of the file system (``exchangeUnsupported``), which
  /// it keeps for the saves after it.
  func withSaver(
    of tree: PackageNode, to target: FilePath? = nil, versions: VersionKeeping? = nil,
    _ save: (inout Saver) throws -> Void
  ) throws {
    var saver = try Saver(target: target ?? path, root: tree)
    saver.owner = saveOwner
    saver.versions = versions
    saver.exchangeUnsupported = exchangeUnsupported
    if versions != nil { (saver.willSwapIn, saver.didSwapIn) = (willSwapIn, didSwapIn) }
    defer { exchangeUnsupported = saver.exchangeUnsupported }
    try save(&saver)
    if let moved = saver.movedTo { path = moved }  // renamed or moved just after the swap: followed there
    rootLeftBySave = saver.leftRoot
    if versions != nil { didSaveInPlace?() }
    versions?.didSave()
  }

  /// What an in-place save does with the version store, per ``versionPolicy``,
  /// ``defersVersionCopies`` and ``willReplacePreviousState``.
  func versionKeeping(store: VersionStore? = nil, holding: RemoteHolding? = nil) -> VersionKeeping {
    VersionKeeping(
      packagePath: path, policy: versionPolicy, defersCopies: defersVersionCopies, appHook: willReplacePreviousState,
      holding: holding, store: store)
  }

  /// Makes this package file's saves defer their version copies (``defersVersionCopies``) and notes
  /// its package with `settler`, which settles it in a detached process when the command ends
  /// (``PendingSettler/startDetached(executable:)``).
  package func deferVersionCopies(settledBy settler: PendingSettler = .shared) {
    defersVersionCopies = true
    settler.note(path)
  }
}
