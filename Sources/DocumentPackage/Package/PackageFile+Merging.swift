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
  /// A program that does not take the package's lock (a shell, an editor) may change the package
  /// while the merge is saved: when the last check before the commit point sees it, the merge is
  /// made again (up to 5 times; the last time, entries added to a folder do not stop it, the sweep
  /// below takes them in); an entry it makes after that check, in a folder the save rebuilds,
  /// is taken into the package after the swap (see `ReplacedTreeSweep`) and named in
  /// ``SaveOutcome/merged(paths:)`` (as is the outcome of a save that had nothing to merge otherwise).
  /// - Throws: As ``save(options:)``, never `conflict`; `changedOnDisk` when entries the merge loaded
  ///   kept changing while it was saved, 5 times over (nothing saved: try again).
  /// - Complexity: As ``save(options:)``, plus O(*c*) `lstat`s for *c* changed entries.
  public func saveMerging() throws -> SaveOutcome {
    let heldLock = try lock ?? PackageLock(forPackageAt: path)
    defer { withExtendedLifetime(heldLock) {} }
    _ = try Self.recover(path, locked: heldLock)
    try refuseSavingBesideStrandedSave()
    for attempt in 1... {
      do {
        // The last try lets entries added meanwhile through to the sweep: only changed entries stop it.
        return try mergeAndSave(sweepingAdditions: attempt == Self.mergeAttempts)
      } catch let changed as ChangedWhileSaving {
        // Another program (without the lock) changed what the save rebuilds while it built: merge again.
        guard attempt < Self.mergeAttempts else {
          throw PackageError(
            .changedOnDisk,
            "package kept changing on disk while it was merged (\(Self.mergeAttempts) tries), not saving (try again):",
            path: path.string, context: "(\(changed.changes.prefix(3).map(\.description).joined(separator: ", ")))")
        }
      }
    }
    fatalError("unreachable")
  }

  /// How often ``saveMerging()`` merges when another program changes the package while the merge is saved.
  static let mergeAttempts = 5

  /// One merge and its save (the lock held, recovery done).
  /// - Throws: ``ChangedWhileSaving`` when the package changed while the save built its new state.
  private func mergeAndSave(sweepingAdditions: Bool) throws -> SaveOutcome {
    mergedOutsideChanges = outsideChanges()
    if mergedOutsideChanges.isEmpty {
      let swept = try saveLocked(root, sweepingAdditions: sweepingAdditions)
      if swept.isEmpty { return .saved }
      root = (try? PackageNode(contentsOf: path)) ?? root  // a new tree, which holds what was taken in
      return .merged(paths: swept)
    }
    let current = try PackageNode(contentsOf: path)
    let store = try? VersionStore(packagePath: path, lockHeld: true)
    let merge = PackageMerge(try OwnChanges(of: root), into: current, packagePath: path, store: store)
    if merge.conflicts.isEmpty {
      let swept = try saveLocked(current, store: store, sweepingAdditions: sweepingAdditions)
      root = swept.isEmpty ? current : (try? PackageNode(contentsOf: path)) ?? current
      return .merged(paths: merge.mergedPaths + swept)
    }
    merge.applyConflicts(to: current)
    let version = try (store ?? VersionStore(packagePath: path, lockHeld: true)).keep(
      current, origin: .conflict, conflictPaths: merge.conflictPaths)
    return .conflict(version: version.id, paths: merge.conflictPaths)
  }
}

extension VersionStore {
  /// The contents of a file as it was when some version kept it, found by the file's load
  /// snapshot (device, inode, size, time: see ``HashCache/hash(forLoaded:)``); `nil` if no version has it.
  func contents(matching status: FileStatus) -> Data? {
    settleIfPending()  // a deferred save's replaced files are known by hash once settled
    guard exists, let hash = HashCache(path: hashesPath).hash(forLoaded: status) else { return nil }
    return try? VersionBlob(store: self, hash: hash, size: status.size).readAll()
  }
}
