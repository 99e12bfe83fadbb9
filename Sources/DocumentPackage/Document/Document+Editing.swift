extension Document {
  /// Changes the package through `body`, undoably: every ``PackageEditor`` method is one undo step
  /// (group several with `editor.undoStack.group(named:) { }` inside `body`).
  ///
  ///     try await document.edit { editor in
  ///       try editor.setFile(at: "Text.txt", contents: Data(text.utf8))
  ///     }
  ///
  /// What `body` returns is dropped: the editor's methods return nodes, which cannot leave the
  /// actor. Read values back with ``read(_:)``.
  /// - Throws: What `body` throws, or ``PackageError`` with code `invalidArgument` if the document
  ///   is closed or read-only.
  public func edit(_ body: (PackageEditor) throws -> Void) throws {
    try requireEditable()
    defer { didChange() }
    try body(editor)
  }

  /// Runs `body` with the undo stack: to name actions, group across calls, set levels or coalescing.
  @discardableResult
  public func withUndoStack<Result: Sendable>(_ body: (UndoStack) throws -> Result) rethrows -> Result {
    defer { didChange() }
    return try body(editor.undoStack)
  }

  /// Undoes the last step. See ``UndoStack/undo()``.
  public func undo() throws {
    try requireEditable()
    defer { didChange() }
    try editor.undoStack.undo()
  }

  /// Redoes the last undone step. See ``UndoStack/redo()``.
  public func redo() throws {
    try requireEditable()
    defer { didChange() }
    try editor.undoStack.redo()
  }

  /// Whether there is a step to undo.
  public var canUndo: Bool { editor.undoStack.canUndo }
  /// Whether there is a step to redo.
  public var canRedo: Bool { editor.undoStack.canRedo }
  /// "Undo Rename", or "Undo".
  public var undoMenuItemTitle: String { editor.undoStack.undoMenuItemTitle }
  /// "Redo Rename", or "Redo".
  public var redoMenuItemTitle: String { editor.undoStack.redoMenuItemTitle }
  /// Whether the document differs from what was last saved (or opened): undoing back to the
  /// saved state makes it false again. See ``UndoStack/hasUnsavedChanges``.
  public var hasUnsavedChanges: Bool { editor.undoStack.hasUnsavedChanges }

  /// After anything that may have changed the model or the undo stack.
  func didChange() { scheduleAutosave() }
}
