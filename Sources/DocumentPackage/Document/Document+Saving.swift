import SystemPackage

extension Document {
  /// Saves the changes into the package, atomically and incrementally (see ``PackageFile/save(options:)``),
  /// on the document's own queue (off the cooperative thread pool).
  ///
  /// Undo keeps working across the save: what undo steps need from files the save replaces is
  /// kept first (the package tells the document's ``PackageEditor`` itself). The previous state is kept as a version per
  /// ``versionPolicy``. On success the document is clean and ``DocumentState/savingError`` and
  /// ``DocumentState/inConflict`` are cleared.
  /// - Parameter overwritingOutsideChanges: Save even though another program changed the package
  ///   since it was loaded (resolves a conflict in favour of this version).
  /// **Cancellation.** Cancelling the task that runs the save is honoured up to the save's commit
  /// point: while the new state is built beside the package (checked before each entry) and
  /// once more when it is complete and durable, just before it replaces the package. The save
  /// then throws `CancellationError`: the package is as it was, no version was kept, the
  /// document keeps its unsaved changes and its state (no ``DocumentState/savingError``).
  /// From the commit point on the save is not cancellable: it replaces the package, makes that
  /// durable, keeps the previous state as a version, and returns normally, the document clean —
  /// a cancellation that comes then is left to the caller's next `await`.
  /// ``saveMerging()``, ``save(to:)`` and ``close(saving:)`` save the same way.
  /// - Throws: ``PackageError`` with code `conflict` if the package changed on disk (the state
  ///   gains ``DocumentState/inConflict``; see ``saveMerging()`` to merge instead), or another error
  ///   (the state gains ``DocumentState/savingError``); the package on disk is then unchanged. Also
  ///   throws if the document is closed or read-only, and `CancellationError` (see above).
  public func save(overwritingOutsideChanges: Bool = false) async throws {
    try requireEditable()
    noticeDeletionIfGone()
    try requireNotDeleted()
    guard let package else { return }
    defer { publish() }
    cancelAutosave()
    try saving(followingMove: true) {
      try package.save(options: overwritingOutsideChanges ? .overwritingOutsideChanges : [])
    }
  }

  /// Saves the whole package to `newPath` ("save as") and makes the document edit that package
  /// from now on (``path`` becomes `newPath`); the package at the old path stays as it was last
  /// saved. Anything at `newPath` is replaced atomically. Undo keeps working; the document is clean.
  ///
  /// This is how a ``DocumentState/deleted`` document (its package deleted on disk by another
  /// program) keeps its contents: everything it read or changed is written to `newPath`, and the
  /// document edits that package, clean, with an empty undo stack (the steps referred to the
  /// deleted files). What it never read went with the package: a directory it never listed, a
  /// file it never read. Those are left out, and the result names them
  /// (``SaveAsResult/uncarriedPaths``); they never make the save fail.
  /// A watching document watches `newPath` afterwards.
  /// - Returns: What could not be carried to `newPath` (only ever something for a deleted package).
  /// - Throws: As ``save(overwritingOutsideChanges:)``, except that changes on disk at the old
  ///   path are not checked; `invalidArgument`, with nothing written and the document unchanged,
  ///   for a destination that holds the package (its folder or any above), lies inside it, is or
  ///   lies in a version store, or is a folder holding packages' version stores.
  @discardableResult
  public func save(to newPath: FilePath) async throws -> SaveAsResult {
    try requireEditable()
    guard let package else { return SaveAsResult() }
    try SaveAsDestination.check(PackageLink.resolve(newPath), packageAt: path)
    defer { publish() }
    cancelAutosave()
    noticeDeletionIfGone()
    var result = SaveAsResult()
    if !state.contains(.deleted) {
      do {
        try saving { try package.save(to: newPath) }
        path = package.path
        holdRoot()
        restartWatching()
        return result
      } catch let error as PackageError where state.contains(.deleted) || Self.isEntryGone(error) {
        // Deleted while saving, or an entry vanished from disk (a package replaced unnoticed, or being removed:
        // `rm -rf` half-way took a file the save was about to copy): carry what the document holds, as below,
        // and name what it cannot.
      }
    }
    // A file the copy would carry from the package can go while it is written (`rm -rf` half-way): the copy is
    // made again, without it, a few times.
    for attempt in 1... {
      let (copy, leftOut) = try editor.root.carriedCopy()
      do {
        try saving(elsewhere: true) { try copy.write(to: newPath) }
        result.uncarriedPaths = leftOut
        break
      } catch let error as PackageError where attempt < 3 && Self.isEntryGone(error) {
        continue
      }
    }
    path = PackageLink.resolve(newPath)
    replaceModel(with: try reopen())
    state.remove(.deleted)
    restartWatching()
    return result
  }

  /// Whether `error` says an entry of the package vanished (or changed) on disk while a save copied from it.
  private static func isEntryGone(_ error: PackageError) -> Bool {
    error.code == .changedOnDisk || error.errno == .noSuchFileOrDirectory
  }

  /// Notices that the package is gone from ``path`` although no monitor reported it (yet): an
  /// unwatched document, or a save that comes right after `rm -rf`, before the monitor's report;
  /// or that another package took its place (`Document+ReplacedPackage`). The state gains
  /// ``DocumentState/deleted``, and the deletion is reported as the monitor's report would be (the
  /// monitor stops: its own report of it would come too late to say anything new).
  func noticeDeletionIfGone() {
    guard !state.contains(.deleted), packageVanished || packageReplacedByAnother else { return }
    if followMovedRoot() { return }  // moved, not deleted (`Document+MovedPackage`)
    let kind: PackageMonitor.Change.Kind = packageVanished ? .packageDeleted : .packageReplaced
    reportDeletion(
      PackageMonitor.Event(
        changes: [PackageMonitor.Change(kind, path.string)], isOwnSave: false, packagePath: path.string))
  }

  /// Saving in place is refused once the package was deleted on disk (see ``DocumentState/deleted``).
  func requireNotDeleted() throws {
    if state.contains(.deleted) { throw deletedError() }
  }

  /// The error of a save in place once the package was deleted on disk, or replaced by another.
  func deletedError() -> PackageError {
    if !packageVanished {
      return PackageError(
        .noSuchEntry,
        "the package was replaced on disk by a directory no save of this document's package made "
          + "(another package moved there?); save the document elsewhere with save(to:), or revert() to open it:",
        path: path.string)
    }
    return PackageError(
      .noSuchEntry, "the package was deleted on disk; save the document elsewhere with save(to:):",
      path: path.string)
  }

  /// Writes the whole package, as the model has it now, to `copyPath` ("save to"); the document
  /// keeps editing ``path``, and its unsaved changes stay unsaved. Anything at `copyPath` is
  /// replaced atomically.
  /// For a package deleted on disk, the copy holds what the document holds, as ``save(to:)``
  /// writes it, and the result names what could not be carried.
  /// - Returns: What could not be carried to `copyPath` (only ever something for a deleted package).
  /// - Throws: As ``PackageFile/saveCopy(to:)``; the document's state does not change (but for
  ///   gaining ``DocumentState/deleted`` when the package is found gone).
  @discardableResult
  public func saveCopy(to copyPath: FilePath) async throws -> SaveAsResult {
    try requireOpen()
    executor.requireOnQueue()
    if package != nil { try SaveAsDestination.check(PackageLink.resolve(copyPath), packageAt: path) }
    if package != nil { noticeDeletionIfGone() }
    if let package, !state.contains(.deleted) {
      do {
        try package.saveCopy(to: copyPath)
        return SaveAsResult()
      } catch {
        noticeDeletionIfGone()  // reported there
        guard state.contains(.deleted) else { throw error }
      }
    }
    guard package != nil else {
      try editor.root.detachedCopy().write(to: copyPath)
      return SaveAsResult()
    }
    let (copy, leftOut) = try editor.root.carriedCopy()
    try copy.write(to: copyPath)
    return SaveAsResult(uncarriedPaths: leftOut)
  }

  /// Runs a save of the package through `body`, turning its failure into the document's state
  /// (a cancelled save is no failure of the document: its state stays as it was). A save in place
  /// that fails because the package went fails as for a deleted package; a save of a deleted
  /// package elsewhere (`elsewhere`) throws its own error, which names what failed. A save in place
  /// that fails because the package moved meanwhile (`followingMove`) follows it and is made again
  /// there, once (`Document+MovedPackage`).
  func saving(elsewhere: Bool = false, followingMove: Bool = false, _ body: () throws -> Void) throws {
    executor.requireOnQueue()
    if followingMove { holdRoot() }
    do {
      try body()
    } catch let error as CancellationError {
      throw error
    } catch let error as PackageError {
      if followingMove, followMovedRoot() { return try saving(body) }  // moved: saved there, once
      noticeDeletionIfGone()
      if state.contains(.deleted), !elsewhere {
        // What vanished went with the package: a deletion, not a conflict (save(to:) carries the rest).
        // A save that met the other package only after its swap says where it kept what it built.
        let deleted = LoadedRootHold.keptBuiltState(error) ? error : deletedError()
        lastError = deleted
        throw deleted
      }
      lastError = error
      state.insert(error.code == .conflict ? .inConflict : .savingError)
      throw error
    } catch {
      lastError = PackageError(.io, "cannot save", path: path.string, context: "(\(error))")
      state.insert(.savingError)
      throw error
    }
    lastError = nil
    // Renamed or moved by another program just after the swap: the save followed it (`Saver.followIfMoved`).
    if followingMove, let saved = package?.path, saved != path { announceFollowed(to: saved) }
    holdRoot()  // the root the save left
    state.remove([.inConflict, .savingError])
    // The package now holds what the document saved: outside removals before it are no longer
    // the first bursts of a deletion (see `react(to:)`, point 1).
    modelBeforeRemovals = nil
    settleSavedVersions()
  }

  /// Drops every change and reloads the package from disk: `UIDocument.revert(toContentsOf:)`.
  ///
  /// The undo stack is emptied and the document is clean; a conflict is resolved in favour of
  /// what is on disk; a ``DocumentState/deleted`` document whose package is back at ``path`` reads
  /// it (and watches it again). The model is a new tree: nodes read before are no longer part of it.
  /// - Throws: ``PackageError`` if the package cannot be opened; the document is then unchanged.
  public func revert() async throws {
    try requireOpen()
    defer { publish() }
    cancelAutosave()
    executor.requireOnQueue()
    replaceModel(with: try reopen())
    lastError = nil
    state.remove([.inConflict, .savingError, .deleted])
    if watchingWanted && !isWatching { tryToStartWatching() }
  }

  /// Makes `root` the model, with an empty undo stack, clean (after a revert, restore or merge:
  /// undo steps hold nodes of the tree that was replaced).
  func replaceModel(with root: PackageNode) {
    editor = PackageEditor(root: root.verifyingLoads(), undoStack: editor.undoStack)
    editor.undoStack.removeAllActions()
    editor.undoStack.markSaved()
    holdRoot()
  }

  /// Closes the document, saving unsaved changes first if `saving` is true (the default), as
  /// `UIDocument.close` does. Afterwards nothing can be read, edited or saved. Returns once the
  /// versions its saves left pending are settled (see ``versionPolicy``).
  /// - Throws: What ``save(overwritingOutsideChanges:)`` throws; the document then stays open.
  public func close(saving: Bool = true) async throws {
    guard !state.contains(.closed) else { return }
    if saving, hasUnsavedChanges, !state.contains(.editingDisabled) { try await save() }
    cancelAutosave()
    stopMonitor()
    package?.close()
    package = nil
    heldRoot = nil
    editor.undoStack.removeAllActions()
    state.insert(.closed)
    publish()
    stateObservers.finish()
    updateObservers.finish()
    await PendingSettler.shared.waitForBackgroundSettles()
  }

  /// Turns autosave on (saving `delay` after the last change) or off (`nil`). See ``autosaveDelay``.
  public func setAutosaveDelay(_ delay: Duration?) { autosaveDelay = delay }

  /// What another program changed in the package since it was loaded or saved; if anything, the
  /// state gains ``DocumentState/inConflict``. Call it when the app comes back to the front.
  /// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes.
  public func checkForOutsideChanges() -> [OutsideEntryChange] {
    guard let package, !state.contains(.closed) else { return [] }
    let changes = package.outsideChanges()
    noticeDeletionIfGone()  // reported there
    if state.contains(.deleted) { return changes }
    if !changes.isEmpty, !state.contains(.inConflict) {
      state.insert(.inConflict)
      publish()
    }
    return changes
  }

  /// Restarts the autosave timer if autosave is on and there is something to save.
  func restartAutosaveTimer() {
    cancelAutosave()
    guard let delay = autosaveDelay, hasUnsavedChanges,
      state.isDisjoint(with: [.closed, .editingDisabled, .inConflict, .deleted])
    else { return }
    let clock = clock
    autosaveTask = Task { [weak self] in
      do { try await clock.sleep(for: delay) } catch { return }  // cancelled: a newer change restarted the timer
      await self?.autosave()
    }
  }

  func cancelAutosave() {
    autosaveTask?.cancel()
    autosaveTask = nil
  }

  /// Saves if there is something to save, unless an undo group is open (then tries again later).
  /// An autosave merges with what another program changed meanwhile (``saveMerging()``), as the
  /// monitor's reaction to that change would have: a plain save would fail with a conflict that
  /// nobody sees, leave the document ``DocumentState/inConflict`` with no conflict version, the
  /// monitor's reaction then deferred, and the edits never saved.
  func autosave() async {
    autosaveTask = nil
    guard hasUnsavedChanges, state.isDisjoint(with: [.closed, .editingDisabled, .inConflict, .deleted]) else { return }
    if editor.undoStack.groupingLevel > 0 {
      restartAutosaveTimer()
      return
    }
    _ = try? await saveMerging()
  }
}

extension Document {
  /// For tests: called during each save once the new state is durable, just before it replaces
  /// the package (see ``PackageFile/willReplacePreviousState``).
  func setWillReplacePreviousState(_ hook: (@Sendable (FilePath) throws -> Void)?) {
    package?.willReplacePreviousState = hook
  }

  /// For tests: called during each save once the new state is durable, just before the save checks
  /// that nothing it rebuilds changed on disk meanwhile (see ``PackageFile/willCheckBeforeCommit``).
  func setWillCheckBeforeCommit(_ hook: (@Sendable () -> Void)?) {
    package?.willCheckBeforeCommit = hook
  }

  /// For tests: called during each save after its last check, just before the rename that puts
  /// its new state in place (see ``PackageFile/willSwapIn``).
  func setWillSwapIn(_ hook: (@Sendable () -> Void)?) {
    package?.willSwapIn = hook
  }

  /// For tests: called during each save once its swap is complete, just before the model is pointed at what it
  /// saved (see ``PackageFile/didSwapIn``).
  func setDidSwapIn(_ hook: (@Sendable () -> Void)?) {
    package?.didSwapIn = hook
  }

  /// For tests: called at the end of each save in place, before the document looks at its package again (see
  /// ``PackageFile/didSaveInPlace``).
  func setDidSaveInPlace(_ hook: (@Sendable () -> Void)?) {
    package?.didSaveInPlace = hook
  }
}
