extension Document {
  /// Runs `body` on the package's root node, for reading only.
  ///
  ///     let text = try await document.read { root in try root.node(at: "Text.txt").contents() }
  ///
  /// The tree is read-only during `body`: a change attempted through any node (a mutator, or
  /// setting ``PackageNode/permissions``) is refused, and `read` throws, so nothing is changed
  /// behind undo's back and lost at close. Make changes in ``edit(named:registeringUndo:_:)``.
  /// `body` is `sending`, so it can be called from any isolation (the main actor included) with a
  /// closure that captures non-`Sendable` values it owns. It runs on the document's actor, not the
  /// caller's: copy main-actor state into a local first (`let text = self.text`); the compiler
  /// refuses a closure that reads `self.text` of a `@MainActor` object.
  ///
  /// What `body` reads is one saved state of the package, even while other programs save it: a
  /// part `body` reads from disk for the first time is checked to belong to the state the model
  /// was loaded from, and when another program saved since, the document first reacts as to any
  /// outside change (reloads, or merges its unsaved changes; see ``OutsideChange``) and then runs
  /// `body` again on the new state, at most three times in all. So `body` may run more than once:
  /// keep it free of side effects other than its result.
  /// - Throws: What `body` throws, or ``PackageError`` with code `invalidArgument` if the document is
  ///   closed or `body` attempted a change (the message names the path), or `changedOnDisk` when
  ///   saves by other programs kept meeting `body` (or the document is ``DocumentState/inConflict``
  ///   and cannot take the new state in).
  public func read<Result: Sendable>(_ body: sending (PackageNode) throws -> Result) throws -> Result {
    try requireOpen()
    return try meetingOutsideSaves { try editor.readingOnly(body) }
  }

  /// Changes the package through `body`, undoably: `body` gets the root node, and every change made
  /// through ``PackageNode``'s mutators is recorded (see ``PackageEditor``).
  ///
  ///     try await document.edit { root in
  ///       try root.setFile(at: "Text.txt", contents: Data(text.utf8))
  ///     }
  ///     try await document.edit(named: "Add Image") { root in
  ///       try root.setFile(at: "Images/tram.png", contents: png)
  ///       try root.setFile(at: "Images/index.json", contents: index)
  ///     }
  ///
  /// Without `actionName`, everything `body` does is one undo step, named after its first change ("Undo
  /// Typing" for `setContents` first); an edit whose one change is a content edit of one file made less than
  /// ``UndoStack/coalescingInterval`` (1 s) after the last one merges into its step, as typing does; what
  /// `body` changed before it threw stays, as that step. With `actionName`, everything
  /// `body` does is one step with that name, which typing before or after it does not merge into, and it
  /// is all or nothing: when `body` throws, what it changed is taken back (no undo step is left, the redo
  /// steps are gone as after any edit) — unless undo registration is off (`registeringUndo` false, or
  /// ``UndoStack/disableUndoRegistration()``) or an undo group is open (its changes belong to that group).
  /// What `body` returns is dropped: mutators return nodes, which cannot leave the actor. Read
  /// values back with ``read(_:)``.
  /// - Parameters:
  ///   - actionName: Makes `body`'s changes one undo step called so ("Add Image").
  ///   - registeringUndo: `false` to make changes that cannot be undone (such as setting up a new
  ///     document); they still count as unsaved changes.
  ///   - body: The changes. `sending`: callable from the main actor (see ``read(_:)``).
  /// Like ``read(_:)``, `body` never combines two saved states: when a part it reads from disk for
  /// the first time belongs to a newer saved state, the document reacts as to an outside change
  /// and, if `body` had changed nothing yet, runs it again on the new state (at most three times
  /// in all); otherwise its changes so far are merged like any unsaved change and `edit` throws.
  /// - Throws: What `body` throws, or ``PackageError`` with code `invalidArgument` if the document
  ///   is closed or read-only, or `changedOnDisk` when another program's save met `body` (see above).
  ///   A mutator that throws changes nothing.
  public func edit(
    named actionName: String? = nil, registeringUndo: Bool = true, _ body: sending (PackageNode) throws -> Void
  ) throws {
    try requireEditable()
    defer { didChange() }
    let stack = editor.undoStack
    if !registeringUndo { stack.disableUndoRegistration() }
    defer { if !registeringUndo { stack.enableUndoRegistration() } }
    try meetingOutsideSaves {
      guard let actionName else { return try stack.groupKeyedByItsOnlyAction { try body(editor.root) } }
      let lastStep = stack.undoGroups.last
      do {
        try stack.group(named: actionName) {
          stack.endCoalescing()
          try body(editor.root)
        }
      } catch {
        // All or nothing: the step `body` made is taken back, unless a save met it (then its changes
        // are merged as unsaved changes, see above).
        if editor.root.origin?.location.metNewerState != true, stack.groupingLevel == 0,
          let step = stack.undoGroups.last, step !== lastStep, (try? stack.undo()) != nil
        {
          stack.redoGroups.removeAll()  // the edit had dropped them; its own undone step is not one to redo
          stack.notify()
        }
        throw error
      }
      stack.endCoalescing()
    }
  }

  /// Runs `body` with the undo stack: to name actions, group across calls, set levels or coalescing.
  ///
  /// `body` is `sending`: callable from the main actor (see ``read(_:)``).
  @discardableResult
  public func withUndoStack<Result: Sendable>(_ body: sending (UndoStack) throws -> Result) rethrows -> Result {
    defer { didChange() }
    return try body(editor.undoStack)
  }

  /// Undoes the last step. See ``UndoStack/undo()``.
  public func undo() throws {
    try requireEditable()
    defer { didChange() }
    try editor.undoStack.undo()
    editor.changesRecorded &+= 1  // the undone changes are not recorded as changes; the document changed
  }

  /// Redoes the last undone step. See ``UndoStack/redo()``.
  public func redo() throws {
    try requireEditable()
    defer { didChange() }
    try editor.undoStack.redo()
    editor.changesRecorded &+= 1
  }

  /// Whether there is a step to undo.
  public var canUndo: Bool { editor.undoStack.canUndo }
  /// Whether there is a step to redo.
  public var canRedo: Bool { editor.undoStack.canRedo }
  /// "Undo Rename", or "Undo".
  public var undoMenuItemTitle: String { editor.undoStack.undoMenuItemTitle }
  /// "Redo Rename", or "Redo".
  public var redoMenuItemTitle: String { editor.undoStack.redoMenuItemTitle }
  /// Whether the document differs from what was last saved (or opened): the undo stack is away
  /// from the saved state (``UndoStack/hasUnsavedChanges``; undoing back to it makes this false
  /// again), or the tree itself has changes (``PackageNode/hasUnsavedChanges``), however they were
  /// made. ``close(saving:)`` and autosave save when it is true.
  /// - Complexity: O(*n*) in the loaded nodes when the undo stack is at the saved state.
  public var hasUnsavedChanges: Bool { editor.undoStack.hasUnsavedChanges || editor.root.hasUnsavedChanges }

  /// After anything that may have changed the model or the undo stack: tells observers (see
  /// ``updates()``) and restarts the autosave timer.
  func didChange() {
    publish()
    restartAutosaveTimer()
    if pendingOutsideEvent != nil { reactToPendingOutsideChange() }
  }
}
