extension Document {
  /// The document as an app shows it now: state, undo and redo, unsaved changes.
  public var currentUpdate: DocumentUpdate {
    DocumentUpdate(
      state: state, canUndo: canUndo, canRedo: canRedo, undoMenuItemTitle: undoMenuItemTitle,
      redoMenuItemTitle: redoMenuItemTitle, hasUnsavedChanges: hasUnsavedChanges)
  }

  /// A stream of ``DocumentUpdate``s, starting with the current one, then one after every edit,
  /// undo, redo, undo-stack change (``withUndoStack(_:)``), save, revert, merge, restore, conflict
  /// found, outside change (with ``DocumentUpdate/outsideChange`` set) and close; it ends when the
  /// document closes. Keeps an app's menus ("Undo Rename") and
  /// title bar (edited mark, conflict badge) current without polling:
  ///
  ///     for await update in await document.updates() {
  ///       undoItem.title = update.undoMenuItemTitle
  ///       undoItem.isEnabled = update.canUndo
  ///       window.isDocumentEdited = update.hasUnsavedChanges
  ///     }
  ///
  /// Consecutive identical updates are not repeated. A slow reader gets the newest 16 updates.
  public func updates() -> AsyncStream<DocumentUpdate> {
    updateObservers.subscribe(current: currentUpdate, closed: state.contains(.closed)) { [weak self] id in
      Task { await self?.removeUpdateObserver(id) }
    }
  }

  func removeUpdateObserver(_ id: Int) { updateObservers.remove(id) }

  /// Sends the current update to every observer that has not seen it yet, with `outsideChange`
  /// when it follows the reaction to one.
  func publish(outsideChange: OutsideChange? = nil) {
    guard !updateObservers.isEmpty else { return }
    var update = currentUpdate
    update.outsideChange = outsideChange
    updateObservers.publish(update)
  }
}
