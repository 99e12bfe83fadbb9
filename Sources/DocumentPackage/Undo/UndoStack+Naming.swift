extension UndoStack {
  /// Names the current step for menus: "Rename" shows as "Undo Rename".
  ///
  /// Applies to the outermost open group, or, outside groups, to the last step registered.
  /// While undoing it names the redo step (which otherwise keeps the undone step's name).
  ///
  /// Renaming a step already on the undo stack calls ``onChange``, so a menu updated from it shows the new name.
  public func setActionName(_ name: String) {
    guard let step = currentStep, step.name != name else { return }
    step.name = name
    if openGroups.isEmpty, collecting == nil { notify() }
  }

  /// Names the current step only if it has no name yet (used by ``PackageEditor`` for its defaults).
  func setDefaultActionName(_ name: String) {
    if let step = currentStep, step.name.isEmpty { setActionName(name) }
  }

  /// The name of the step ``undo()`` would undo; empty if none or unnamed.
  public var undoActionName: String { undoGroups.last?.name ?? "" }
  /// The name of the step ``redo()`` would redo; empty if none or unnamed.
  public var redoActionName: String { redoGroups.last?.name ?? "" }

  /// The title of an Undo menu item: "Undo Rename", or "Undo" for an unnamed step.
  public var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
  /// The title of a Redo menu item: "Redo Rename", or "Redo" for an unnamed step.
  public var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

  /// "Undo" followed by `name`, if not empty.
  public func undoMenuTitle(forUndoActionName name: String) -> String { name.isEmpty ? "Undo" : "Undo \(name)" }
  /// "Redo" followed by `name`, if not empty.
  public func redoMenuTitle(forUndoActionName name: String) -> String { name.isEmpty ? "Redo" : "Redo \(name)" }

  /// Marks the current step as discardable: a change that a save need not keep, such as a
  /// selection. Discardable steps undo and redo as others do but never change ``hasUnsavedChanges``.
  ///
  /// Applies to the outermost open group, or, outside groups, to the last step registered.
  public func setActionIsDiscardable(_ discardable: Bool) {
    guard let step = currentStep, step.isDiscardable != discardable else { return }
    step.isDiscardable = discardable
    // A finished step changes its effect on the saved state: re-link it to the current state.
    if step === undoGroups.last, openGroups.isEmpty, collecting == nil {
      if discardable {
        currentState = step.leadsTo
        step.appliesAt = currentState
      } else {
        step.leadsTo = currentState
        currentState = newStateID()
        step.appliesAt = currentState
      }
      notify()
    }
  }

  /// Whether the step ``undo()`` would undo is discardable.
  public var undoActionIsDiscardable: Bool { undoGroups.last?.isDiscardable ?? false }
  /// Whether the step ``redo()`` would redo is discardable.
  public var redoActionIsDiscardable: Bool { redoGroups.last?.isDiscardable ?? false }
}
