/// One undo or redo step: the actions registered between the opening and closing of an outermost
/// group (or one action registered outside any group), run last-first to undo the step.
final class UndoGroup {
  /// The actions, in the order they were registered.
  var actions: [UndoAction] = []
  /// The name shown in menus ("Rename"); empty if none was set.
  var name: String
  /// Whether the step changes nothing a user would save (a selection, a scroll position).
  var isDiscardable: Bool
  /// Steps with equal keys registered in quick succession merge into one (typing).
  var coalescingKey: AnyHashable?
  /// A group that takes the key its one action was registered with, when it holds one action: a
  /// ``Document``'s unnamed edit of one file then merges as that change alone would (see
  /// ``UndoStack/groupKeyedByItsOnlyAction(_:)``).
  var takesKeyOfOnlyAction = false
  /// The key the group's first action was registered with.
  var keyOfFirstAction: AnyHashable?
  /// The document state in which this step can be performed, and the one it leads to.
  /// Equal for discardable steps. See ``UndoStack/hasUnsavedChanges``.
  var appliesAt = 0
  var leadsTo = 0

  init(name: String = "", isDiscardable: Bool = false, coalescingKey: AnyHashable? = nil) {
    self.name = name
    self.isDiscardable = isDiscardable
    self.coalescingKey = coalescingKey
  }
}

/// A registered undo (or redo) action.
struct UndoAction {
  /// The object the action was registered with, held weakly; `nil` for target-less actions.
  weak var target: AnyObject?
  /// Runs the action.
  let perform: () throws -> Void
}
