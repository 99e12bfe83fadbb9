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
