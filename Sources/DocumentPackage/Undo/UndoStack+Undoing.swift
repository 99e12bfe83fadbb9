extension UndoStack {
  /// Undoes the last step: runs its actions last-first. What they register becomes the redo step.
  ///
  /// If an action throws, the actions already run are redone (with registration off), the step
  /// stays on the undo stack, and the error is rethrown: a failed undo leaves the model as it was.
  /// - Throws: What an action throws.
  /// - Precondition: No group is open, and no undo or redo is running.
  public func undo() throws {
    precondition(openGroups.isEmpty, "undo() called inside an open group; call endGrouping() first")
    guard let step = undoGroups.last else { return }
    try perform(step, undoing: true)
  }

  /// Redoes the last undone step. What its actions register becomes an undo step again.
  /// - Throws: What an action throws; as with ``undo()``, a failed redo changes nothing.
  /// - Precondition: No group is open, and no undo or redo is running.
  public func redo() throws {
    precondition(openGroups.isEmpty, "redo() called inside an open group; call endGrouping() first")
    guard let step = redoGroups.last else { return }
    try perform(step, undoing: false)
  }

  private func perform(_ step: UndoGroup, undoing: Bool) throws {
    precondition(!isUndoing && !isRedoing, "undo() or redo() called while undoing or redoing")
    coalescing = nil
    let counterpart = UndoGroup(name: step.name, isDiscardable: step.isDiscardable)
    counterpart.appliesAt = step.leadsTo
    counterpart.leadsTo = step.appliesAt
    collecting = counterpart
    if undoing { isUndoing = true } else { isRedoing = true }
    defer {
      collecting = nil
      isUndoing = false
      isRedoing = false
    }
    do {
      for action in step.actions.reversed() { try action.perform() }
    } catch {
      collecting = nil
      withoutUndoRegistration {
        for action in counterpart.actions.reversed() { try? action.perform() }
      }
      throw error
    }
    if undoing {
      undoGroups.removeLast()
      if !counterpart.actions.isEmpty { redoGroups.append(counterpart) }
    } else {
      redoGroups.removeLast()
      if !counterpart.actions.isEmpty { undoGroups.append(counterpart) }
    }
    currentState = step.leadsTo
    trim()
    notify()
  }
}
