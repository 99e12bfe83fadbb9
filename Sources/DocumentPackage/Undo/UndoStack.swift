/// Records how to undo changes, and undoes and redoes them: Foundation's `UndoManager`, which
/// Foundation on Linux does not have.
///
///     let undo = UndoStack()
///     undo.registerUndo(withTarget: note) { note in note.title = "Old" }   // done while renaming
///     undo.setActionName("Rename")
///     undo.undoMenuItemTitle          // "Undo Rename"
///     try undo.undo()
///
/// Each action registered outside a group is one undo step; actions registered between
/// ``beginGrouping(coalescingKey:)`` and the matching ``endGrouping()`` (or in ``group(named:coalescingKey:_:)``)
/// form one step, however deeply groups nest. Undoing a step runs its actions last-first; the
/// actions register their own inverses, which become the redo step (as with `UndoManager`).
///
/// The stack also knows whether the document has unsaved changes: ``markSaved()`` records the
/// current state, and undoing back to it makes ``hasUnsavedChanges`` false again, as
/// `UIDocument`'s change count does.
///
/// ## Concurrency
/// `UndoStack` is a non-`Sendable` class, like ``PackageNode``: it lives wherever the model it undoes
/// lives (the main actor, a document actor, or one task) and Swift 6 keeps it there. Its actions are
/// plain closures that capture non-`Sendable` model objects and run synchronously on the owner's
/// isolation; an actor-isolated or `@MainActor` stack would force the model onto that same actor
/// or force every action to be `@Sendable`, which model nodes cannot be.
public final class UndoStack {
  /// How many steps are kept for undo (and for redo); the oldest are dropped beyond it. 0, the
  /// default, keeps every step.
  public var levelsOfUndo: Int {
    didSet {
      precondition(levelsOfUndo >= 0, "levelsOfUndo must not be negative")
      trim()
    }
  }

  /// How long after an edit a following edit with the same coalescing key still merges into the
  /// same step: one second by default. `.zero` turns coalescing off.
  public var coalescingInterval: Duration = .seconds(1)

  /// Called after every change to the stacks or to the saved state: a step added, merged,
  /// named, undone or redone, actions removed, a save recorded. Use it to update menus or schedule
  /// an autosave: when it runs, a new step already has its name (``undoMenuItemTitle`` reads "Undo Rename").
  public var onChange: ((UndoStack) -> Void)?

  /// Whether ``undo()`` is running.
  public internal(set) var isUndoing = false
  /// Whether ``redo()`` is running.
  public internal(set) var isRedoing = false

  var undoGroups: [UndoGroup] = []
  var redoGroups: [UndoGroup] = []
  /// Explicitly opened groups, outermost first.
  var openGroups: [UndoGroup] = []
  /// The step being collected while undoing or redoing.
  var collecting: UndoGroup?
  var disableCount = 0
  /// The step the next edit with the same key merges into, and when it was last extended.
  var coalescing: (group: UndoGroup, lastEdit: ContinuousClock.Instant)?
  /// The time coalescing measures; tests replace it to step time forward without sleeping.
  var now: () -> ContinuousClock.Instant = { ContinuousClock.now }

  var currentState = 0
  var savedState = 0
  var lastStateID = 0

  /// Creates an empty stack.
  /// - Parameter levelsOfUndo: The most steps kept; 0 for no limit.
  public init(levelsOfUndo: Int = 0) {
    precondition(levelsOfUndo >= 0, "levelsOfUndo must not be negative")
    self.levelsOfUndo = levelsOfUndo
  }

  /// Whether there is a step to undo.
  public var canUndo: Bool { !undoGroups.isEmpty }
  /// Whether there is a step to redo.
  public var canRedo: Bool { !redoGroups.isEmpty }
  /// How many steps can be undone.
  public var undoCount: Int { undoGroups.count }
  /// How many steps can be redone.
  public var redoCount: Int { redoGroups.count }

  /// How many explicit groups are open (0 outside any group).
  public var groupingLevel: Int { openGroups.count }

  /// Whether registered actions are recorded; see ``disableUndoRegistration()``.
  public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

  /// Stops recording actions until the matching ``enableUndoRegistration()``. Calls nest.
  public func disableUndoRegistration() { disableCount += 1 }

  /// Undoes one ``disableUndoRegistration()``.
  public func enableUndoRegistration() {
    precondition(disableCount > 0, "enableUndoRegistration() without a matching disableUndoRegistration()")
    disableCount -= 1
  }

  /// Runs `body` with registration disabled.
  @discardableResult
  public func withoutUndoRegistration<Result>(_ body: () throws -> Result) rethrows -> Result {
    disableUndoRegistration()
    defer { enableUndoRegistration() }
    return try body()
  }

  /// Removes every undo and redo step. Open groups and the saved state are kept.
  public func removeAllActions() {
    undoGroups.removeAll()
    redoGroups.removeAll()
    coalescing = nil
    notify()
  }

  /// Removes the actions registered with `target`, and steps left empty.
  public func removeAllActions(withTarget target: AnyObject) {
    func strip(_ groups: [UndoGroup]) -> [UndoGroup] {
      for group in groups { group.actions.removeAll { $0.target === target } }
      return groups.filter { !$0.actions.isEmpty }
    }
    undoGroups = strip(undoGroups)
    redoGroups = strip(redoGroups)
    for group in openGroups { group.actions.removeAll { $0.target === target } }
    if let group = coalescing?.group, group.actions.isEmpty { coalescing = nil }
    notify()
  }

  func trim() {
    guard levelsOfUndo > 0 else { return }
    if undoGroups.count > levelsOfUndo { undoGroups.removeFirst(undoGroups.count - levelsOfUndo) }
    if redoGroups.count > levelsOfUndo { redoGroups.removeFirst(redoGroups.count - levelsOfUndo) }
  }

  func notify() { onChange?(self) }
}
