extension UndoStack {
  /// Records an action that undoes a change just made to `target`.
  ///
  /// `target` is held weakly: if it is gone when the step is undone, the action does nothing.
  /// Called while undoing, the action goes to the redo step; while redoing, to the undo step;
  /// otherwise it clears the redo steps, as a new edit does.
  /// - Parameters:
  ///   - target: The object the action changes, passed back to `handler`.
  ///   - coalescingKey: Outside any group, a key that lets this step merge into the previous one
  ///     (see ``beginGrouping(coalescingKey:)``); ignored inside groups.
  ///   - handler: Undoes the change; it registers its own inverse to make redo possible.
  public func registerUndo<Target: AnyObject>(
    withTarget target: Target, coalescingKey: AnyHashable? = nil, handler: @escaping (Target) throws -> Void
  ) {
    register(
      UndoAction(target: target) { [weak target] in
        guard let target else { return }
        try handler(target)
      }, coalescingKey: coalescingKey)
  }

  /// Records an action that undoes a change just made; the closure is held strongly.
  ///
  /// See ``registerUndo(withTarget:coalescingKey:handler:)``.
  public func registerUndo(coalescingKey: AnyHashable? = nil, _ handler: @escaping () throws -> Void) {
    register(UndoAction(target: nil, perform: handler), coalescingKey: coalescingKey)
  }

  /// Registers `handler` as ``registerUndo(withTarget:coalescingKey:handler:)`` does, naming the
  /// step `defaultActionName` if it has no name yet, before ``onChange`` reports it.
  func registerUndo<Target: AnyObject>(
    withTarget target: Target, coalescingKey: AnyHashable?, defaultActionName: String?,
    handler: @escaping (Target) throws -> Void
  ) {
    register(
      UndoAction(target: target) { [weak target] in
        guard let target else { return }
        try handler(target)
      }, coalescingKey: coalescingKey, defaultActionName: defaultActionName)
  }

  func register(_ action: UndoAction, coalescingKey: AnyHashable?, defaultActionName: String? = nil) {
    guard isUndoRegistrationEnabled else { return }
    if let group = openGroups.last ?? collecting {
      if group.actions.isEmpty { group.keyOfFirstAction = coalescingKey }
      group.actions.append(action)
      if let defaultActionName { setDefaultActionName(defaultActionName) }
      return
    }
    let group = UndoGroup(coalescingKey: coalescingKey)
    group.actions.append(action)
    push(group, defaultName: defaultActionName)
  }

  /// Adds a finished step made by a new edit (not by undo or redo), or merges it into the
  /// previous step when their coalescing keys match.
  /// - Parameter defaultName: The step's name if it has none (a merged step keeps the name it had).
  func push(_ group: UndoGroup, defaultName: String? = nil) {
    guard !group.actions.isEmpty else { return }
    let now = self.now()
    redoGroups.removeAll()
    if let key = group.coalescingKey, case let (previous, lastEdit)? = coalescing,
      previous === undoGroups.last, previous.coalescingKey == key,
      previous.isDiscardable == group.isDiscardable, now - lastEdit < coalescingInterval
    {
      // The previous step's actions already restore everything as it was before the first
      // merged edit, so this edit's actions are not needed. A merged edit still changes the
      // document, so it moves to a new state (a save in between is a boundary; see markSaved()).
      if group.name.isEmpty == false { previous.name = group.name }
      if previous.name.isEmpty, let defaultName { previous.name = defaultName }
      if !previous.isDiscardable {
        currentState = newStateID()
        previous.appliesAt = currentState
      }
      coalescing = (previous, now)
      notify()
      return
    }
    if group.isDiscardable {
      group.appliesAt = currentState
      group.leadsTo = currentState
    } else {
      group.leadsTo = currentState
      currentState = newStateID()
      group.appliesAt = currentState
    }
    if group.name.isEmpty, let defaultName { group.name = defaultName }
    undoGroups.append(group)
    trim()
    coalescing = group.coalescingKey == nil ? nil : (group, now)
    notify()
  }

  func newStateID() -> Int {
    lastStateID += 1
    return lastStateID
  }
}
