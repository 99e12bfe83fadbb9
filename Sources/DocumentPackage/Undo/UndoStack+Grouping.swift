extension UndoStack {
  /// Opens a group: actions registered until the matching ``endGrouping()`` are undone as one step.
  ///
  /// Groups nest; only the outermost one makes a step. Nested groups end any coalescing.
  /// - Parameter coalescingKey: For an outermost group, a key that lets the step merge into the
  ///   previous step when that one has the same key, was extended less than
  ///   ``coalescingInterval`` ago and nothing else (another step, an undo, a save,
  ///   ``endCoalescing()``) came in between: consecutive keystrokes in one file become one step.
  ///   The merged step keeps only the first edit's actions, which must therefore restore the
  ///   state from before it outright (set values back), as ``PackageEditor``'s do.
  public func beginGrouping(coalescingKey: AnyHashable? = nil) {
    openGroups.append(UndoGroup(coalescingKey: openGroups.isEmpty ? coalescingKey : nil))
  }

  /// Closes the innermost group opened by ``beginGrouping(coalescingKey:)``.
  ///
  /// Closing the outermost group adds its step to the undo stack (or, while undoing, to the
  /// redo step being built); a group in which nothing was registered adds nothing.
  public func endGrouping() {
    precondition(!openGroups.isEmpty, "endGrouping() without a matching beginGrouping()")
    let group = openGroups.removeLast()
    if let outer = openGroups.last ?? collecting {
      outer.actions += group.actions
      if outer.name.isEmpty { outer.name = group.name }
    } else {
      if group.takesKeyOfOnlyAction, group.actions.count == 1 { group.coalescingKey = group.keyOfFirstAction }
      push(group)
    }
  }

  /// Runs `body` inside a group, as ``group(named:coalescingKey:_:)`` does, whose step merges into the previous one
  /// as its one action's own step would when `body` registers one action (a content edit of one file while
  /// typing), and never when it registers several: a ``Document``'s unnamed edit.
  func groupKeyedByItsOnlyAction<Result>(_ body: () throws -> Result) rethrows -> Result {
    beginGrouping()
    openGroups.last?.takesKeyOfOnlyAction = openGroups.count == 1
    defer { endGrouping() }
    return try body()
  }

  /// Runs `body` inside a group, so everything it registers is one step.
  ///
  /// The group is closed even if `body` throws; what it registered before throwing stays undoable.
  /// - Parameters:
  ///   - name: The action name for menus ("Rename"), or `nil` to leave it unset.
  ///   - coalescingKey: See ``beginGrouping(coalescingKey:)``.
  ///   - body: The changes that register the step's actions.
  /// - Returns: What `body` returns.
  @discardableResult
  public func group<Result>(
    named name: String? = nil, coalescingKey: AnyHashable? = nil, _ body: () throws -> Result
  ) rethrows -> Result {
    beginGrouping(coalescingKey: coalescingKey)
    defer { endGrouping() }
    if let name { setActionName(name) }
    return try body()
  }

  /// Makes the next edit start a new step even if its coalescing key matches (a pause in typing,
  /// the cursor moved).
  public func endCoalescing() { coalescing = nil }

  /// The step an action name or discardable flag applies to: the outermost open group, the
  /// redo or undo step being built, or else the last undo step.
  var currentStep: UndoGroup? { openGroups.first ?? collecting ?? undoGroups.last }
}
