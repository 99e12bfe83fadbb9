/// What an app shows of a ``Document`` in its menus and title bar, as one value: the state,
/// whether undo and redo are possible and their menu titles, and whether there are unsaved changes.
/// ``Document/updates()`` yields one after every change.
public struct DocumentUpdate: Sendable, Hashable {
  /// The document's state (see ``Document/state``).
  public var state: DocumentState
  /// Whether there is a step to undo (see ``Document/canUndo``).
  public var canUndo: Bool
  /// Whether there is a step to redo (see ``Document/canRedo``).
  public var canRedo: Bool
  /// "Undo Rename", or "Undo" (see ``Document/undoMenuItemTitle``).
  public var undoMenuItemTitle: String
  /// "Redo Rename", or "Redo" (see ``Document/redoMenuItemTitle``).
  public var redoMenuItemTitle: String
  /// Whether the document differs from what was last saved (see ``Document/hasUnsavedChanges``):
  /// a title bar's "edited" mark.
  public var hasUnsavedChanges: Bool
  /// Set on the update published right after the document reacted to an outside change (another
  /// program's save, an editor, `mv`, `rm -rf`): what changed and what the document did, so an
  /// app can refresh its views. `nil` on every other update.
  public var outsideChange: OutsideChange?

  /// Creates an update from its parts.
  public init(
    state: DocumentState, canUndo: Bool, canRedo: Bool, undoMenuItemTitle: String, redoMenuItemTitle: String,
    hasUnsavedChanges: Bool, outsideChange: OutsideChange? = nil
  ) {
    self.outsideChange = outsideChange
    self.state = state
    self.canUndo = canUndo
    self.canRedo = canRedo
    self.undoMenuItemTitle = undoMenuItemTitle
    self.redoMenuItemTitle = redoMenuItemTitle
    self.hasUnsavedChanges = hasUnsavedChanges
  }
}
