extension Document {
  /// Saves the changes into the package, atomically and incrementally (see ``PackageDocument/save(options:)``).
  ///
  /// Undo keeps working across the save: what undo steps need from files the save replaces is
  /// kept first (``PackageEditor/prepareForSave()``). On success the document is clean and
  /// ``DocumentState/savingError`` and ``DocumentState/inConflict`` are cleared.
  /// - Parameter overwritingExternalChanges: Save even though another program changed the package
  ///   since it was loaded (resolves a conflict in favour of this version).
  /// - Throws: ``PackageError`` with code `conflict` if the package changed on disk (the state
  ///   gains ``DocumentState/inConflict``), or another error (the state gains
  ///   ``DocumentState/savingError``); the package on disk is then unchanged. Also throws if the
  ///   document is closed or read-only.
  public func save(overwritingExternalChanges: Bool = false) async throws {
    try requireEditable()
    guard let package else { return }
    autosaveTask?.cancel()
    autosaveTask = nil
    editor.prepareForSave()
    do {
      try package.save(options: overwritingExternalChanges ? .overwritingExternalChanges : [])
    } catch let error as PackageError {
      lastError = error
      state.insert(error.code == .conflict ? .inConflict : .savingError)
      throw error
    } catch {
      lastError = PackageError(.io, "cannot save", path: path.string, context: "(\(error))")
      state.insert(.savingError)
      throw error
    }
    editor.didSave()
    editor.undoStack.markSaved()
    lastError = nil
    state.remove([.inConflict, .savingError])
  }

  /// Drops every change and reloads the package from disk: `UIDocument.revert(toContentsOf:)`.
  ///
  /// The undo stack is emptied and the document is clean; a conflict is resolved in favour of
  /// what is on disk. The model is a new tree: nodes read before are no longer part of it.
  /// - Throws: ``PackageError`` if the package cannot be opened; the document is then unchanged.
  public func revert() async throws {
    try requireOpen()
    autosaveTask?.cancel()
    autosaveTask = nil
    let root: PackageNode
    if package != nil {
      let reopened = try PackageDocument(at: path)
      package?.close()
      package = reopened
      root = reopened.root
    } else {
      root = try PackageNode(contentsOf: path)
    }
    editor = PackageEditor(root: root, undoStack: editor.undoStack)
    editor.undoStack.removeAllActions()
    editor.undoStack.markSaved()
    lastError = nil
    state.remove([.inConflict, .savingError])
  }

  /// Closes the document, saving unsaved changes first if `saving` is true (the default), as
  /// `UIDocument.close` does. Afterwards nothing can be read, edited or saved.
  /// - Throws: What ``save(overwritingExternalChanges:)`` throws; the document then stays open.
  public func close(saving: Bool = true) async throws {
    guard !state.contains(.closed) else { return }
    if saving, hasUnsavedChanges, !state.contains(.editingDisabled) { try await save() }
    autosaveTask?.cancel()
    autosaveTask = nil
    package?.close()
    package = nil
    editor.undoStack.removeAllActions()
    state.insert(.closed)
    for continuation in observers.values { continuation.finish() }
    observers = [:]
  }

  /// Turns autosave on (saving `delay` after the last change) or off (`nil`). See ``autosaveDelay``.
  public func setAutosaveDelay(_ delay: Duration?) { autosaveDelay = delay }

  /// What another program changed in the package since it was loaded or saved; if anything, the
  /// state gains ``DocumentState/inConflict``. Call it when the app comes back to the front.
  /// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes.
  public func checkForExternalChanges() -> [ExternalChange] {
    guard let package, !state.contains(.closed) else { return [] }
    let changes = package.externalChanges()
    if !changes.isEmpty { state.insert(.inConflict) }
    return changes
  }

  /// Restarts the autosave timer if autosave is on and there is something to save.
  func scheduleAutosave() {
    autosaveTask?.cancel()
    autosaveTask = nil
    guard let delay = autosaveDelay, hasUnsavedChanges,
      state.isDisjoint(with: [.closed, .editingDisabled, .inConflict])
    else { return }
    autosaveTask = Task { [weak self] in
      do { try await Task.sleep(for: delay) } catch { return }  // cancelled: a newer change restarted the timer
      await self?.autosave()
    }
  }

  /// Saves if there is something to save, unless an undo group is open (then tries again later).
  func autosave() async {
    autosaveTask = nil
    guard hasUnsavedChanges, state.isDisjoint(with: [.closed, .editingDisabled, .inConflict]) else { return }
    if editor.undoStack.groupingLevel > 0 {
      scheduleAutosave()
      return
    }
    try? await save()
  }
}
