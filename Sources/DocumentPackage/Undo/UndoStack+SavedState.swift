extension UndoStack {
  /// Whether the document differs from what was last saved: `UIDocument.hasUnsavedChanges`.
  ///
  /// Every non-discardable step moves the document to a new state; undoing moves it back. The
  /// document is clean exactly when it is in the state recorded by the last ``markSaved()`` —
  /// so undoing every edit since a save makes it clean, and redoing past the save, or undoing
  /// past it, makes it dirty. A new edit after undoing past the save makes the saved state
  /// unreachable: the document stays dirty until saved again.
  public var hasUnsavedChanges: Bool { currentState != savedState }

  /// Records that the document was just saved (or opened): `updateChangeCount(.changeCleared)`.
  /// Also ends coalescing, so the next edit does not merge into a step from before the save.
  public func markSaved() {
    savedState = currentState
    coalescing = nil
    notify()
  }

  /// Records a change that cannot be undone (made with registration disabled):
  /// `updateChangeCount(.changeDone)` without an undo step. The document becomes dirty.
  public func noteChange() {
    currentState = newStateID()
    coalescing = nil
    notify()
  }
}
