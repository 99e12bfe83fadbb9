import SystemPackage

extension Document {
  /// Which previous states saves keep in the package's ``VersionStore`` (default
  /// ``VersionPolicy/default``: the last 10). Change it with ``setVersionPolicy(_:)``.
  ///
  /// A save keeps the previous state in O(changed) (``PackageFile/defersVersionCopies``) and the
  /// document copies its contents into the store right after, in the background (off the
  /// cooperative pool and off the document's queue): the app has nothing to settle, and
  /// ``close(saving:)`` returns once that is done.
  public var versionPolicy: VersionPolicy { policy }

  /// Sets ``versionPolicy`` for the following saves.
  public func setVersionPolicy(_ policy: VersionPolicy) {
    self.policy = policy
    package?.versionPolicy = policy
  }

  /// The package's versions, oldest first: previous states kept by saves and conflict versions.
  /// - Throws: As ``VersionStore/versions()``, or if the document is closed.
  public func versions() throws -> [PackageVersion] {
    try requireOpen()
    executor.requireOnQueue()
    return try store().versions()
  }

  /// The unresolved conflict versions: while there are any, the package is "in conflict" (see
  /// ``resolveConflicts(keeping:removing:)``).
  /// - Throws: As ``VersionStore/versions()``, or if the document is closed.
  public func unresolvedConflicts() throws -> [PackageVersion] {
    try requireOpen()
    executor.requireOnQueue()
    return try store().unresolvedConflicts()
  }

  /// Runs `body` with the package's version store, on the document's queue: to read a version's
  /// tree, diff it or prune. `body` is `sending`, like ``edit(named:registeringUndo:_:)``'s, so that
  /// it can be written in `@MainActor` code (an app's) and still run on the document's queue.
  /// - Throws: What `body` throws, as ``VersionStore/init(forPackageAt:)``, or if the document is closed.
  public func withVersionStore<Result: Sendable>(_ body: sending (VersionStore) throws -> Result) throws -> Result {
    try requireOpen()
    executor.requireOnQueue()
    return try body(try store())
  }

  func store() throws -> VersionStore {
    if let package { return try package.versionStore() }
    return try VersionStore(forPackageAt: path)
  }

  /// Saves like ``save(overwritingOutsideChanges:)``, but when another writer saved the package
  /// since this document loaded it, merges with it instead of failing (see
  /// ``PackageFile/saveMerging()``):
  ///
  /// - ``SaveOutcome/saved``: nothing else had changed the package; undo keeps working.
  /// - ``SaveOutcome/merged(paths:)``: the package now holds both sides' changes, and so does the
  ///   document, reloaded from it (a new tree: the undo stack is emptied, the document is clean).
  ///   What the other side changed is published as an outside change (``DocumentUpdate/outsideChange``,
  ///   reaction ``OutsideChange/Reaction-swift.enum/merged(paths:)``), as the monitor's reaction
  ///   would have been: the monitor's own report of it follows as held, and is not repeated.
  /// - ``SaveOutcome/conflict(version:paths:)``: both sides changed the same entries; the package
  ///   keeps the other writer's state and this document's side is kept as an unresolved conflict
  ///   version. The document stays as it is and gains ``DocumentState/inConflict``, until
  ///   ``resolveConflicts(keeping:removing:)`` (or ``revert()``).
  ///
  /// One conflict is one conflict version: when this document's side of the conflict is kept
  /// already (by its reaction to the outside change, ``OutsideChange/Reaction-swift.enum/conflict(version:paths:)``,
  /// or an earlier `saveMerging()`), and neither side changed the conflicting entries since (this
  /// document nothing at all; the other writer may have changed other entries), that version is
  /// returned and no other is kept.
  ///
  /// - Throws: As ``save(overwritingOutsideChanges:)``, never `conflict`.
  public func saveMerging() async throws -> SaveOutcome {
    try requireEditable()
    noticeDeletionIfGone()
    try requireNotDeleted()
    guard let package else { return .saved }
    defer { publish() }
    cancelAutosave()
    if let kept = currentKeptConflict { return .conflict(version: kept.version, paths: kept.paths) }
    var outcome = SaveOutcome.saved
    let before = editor.root
    try saving(followingMove: true) { outcome = try package.saveMerging() }
    switch outcome {
    case .saved: break
    case .merged(let paths):
      // What the merge took in, as it looked under the lock (`Document+MergedOutsideChanges`).
      let found = package.mergedOutsideChanges
      replaceModel(with: package.root)
      reportOutsideChangesASaveMet(
        mergedOutsideChanges(found, before: before, after: editor.root), reaction: .merged(paths: paths))
    case .conflict(let version, let paths):
      state.insert(.inConflict)
      noteKeptConflict(version: version, paths: paths)
      cancelAutosave()
      // What the other side changed, as the monitor's reaction would report it (`Document+MergedOutsideChanges`).
      reportOutsideChangesASaveMet(
        outsideChangesOnDisk(package.mergedOutsideChanges), reaction: .conflict(version: version, paths: paths))
    }
    return outcome
  }

  /// Replaces the package with version `id`, atomically, keeping the replaced state as a version
  /// (see ``PackageFile/restoreVersion(_:)``), and reloads the document from it: unsaved changes
  /// are dropped, the undo stack is emptied, the document is clean.
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version, `corrupt` for a blob
  ///   changed in place, or as ``save(overwritingOutsideChanges:)``. After a failure the package
  ///   and the document are unchanged.
  public func restoreVersion(_ id: Int) async throws {
    try requireEditable()
    guard let package else { return }
    defer { publish() }
    cancelAutosave()
    executor.requireOnQueue()
    try package.restoreVersion(id)
    settleSavedVersions()
    replaceModel(with: package.root)
    lastError = nil
    state.remove([.inConflict, .savingError])
  }

  /// Settles the package's conflicts: keeps the package as it is now (`keeping` nil: the other
  /// writer's side) or restores the version `keeping` (for example this document's side, from
  /// ``SaveOutcome/conflict(version:paths:)``), then marks every unresolved conflict version
  /// resolved (see ``PackageFile/resolveConflicts(keeping:removing:)``). The document is then
  /// reloaded from the package: the undo stack is emptied, the document is clean and no longer
  /// ``DocumentState/inConflict``.
  /// - Parameters:
  ///   - id: The version to restore, or `nil` to keep the current package.
  ///   - removing: Also remove the resolved conflict versions.
  /// - Throws: As ``restoreVersion(_:)``.
  public func resolveConflicts(keeping id: Int? = nil, removing: Bool = false) async throws {
    try requireEditable()
    guard let package else { return }
    defer { publish() }
    cancelAutosave()
    executor.requireOnQueue()
    try package.resolveConflicts(keeping: id, removing: removing)
    settleSavedVersions()
    let reopened = try openPackageFile()
    package.close()
    self.package = reopened
    replaceModel(with: reopened.root)
    lastError = nil
    state.remove([.inConflict, .savingError])
  }
}
