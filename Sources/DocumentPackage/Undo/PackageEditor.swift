#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes every change to a package tree undoable: installs itself as the tree's recorder and
/// registers, for each change the model's mutators make, its exact inverse on an ``UndoStack``.
///
///     let root = try PackageNode(contentsOf: path)
///     let editor = PackageEditor(root: root)
///     try root.setFile(at: "Text.txt", contents: Data("Hello".utf8))
///     try root.renameNode(at: "Image.png", to: "Photo.png")
///     editor.undoStack.undoMenuItemTitle     // "Undo Rename"
///     try editor.undoStack.undo()
///
/// There is one set of mutators, on ``PackageNode``; the editor adds no second copy of them. Each
/// mutator reports the primitive changes it made (links made and broken between directories and
/// children, node states before and after) to the recorder installed on the tree's root, which
/// is also where a read-only view refuses changes (``Document/read(_:)``). So a change made
/// directly on any node of the tree, from anywhere, is undoable.
///
/// Undo puts back the very same node objects, with the same change-tracking flags, so a subtree
/// that was removed and restored still reads from (and can be hard-linked from) where it was
/// loaded, and a node edited and then restored counts as unchanged again. Undo entries keep
/// references, never copies: a file's previous `Data` shares its storage, and the contents of
/// files that are moved, renamed or removed are never read.
///
/// Each mutator is one undo step with a default action name ("Rename", "Delete"); call them inside
/// ``UndoStack/group(named:coalescingKey:_:)`` to make several one step, or name it yourself.
/// Consecutive content edits to the same file coalesce into one step (typing); see
/// ``UndoStack/coalescingInterval``. With undo registration disabled, edits are still made and
/// mark the document changed (``UndoStack/noteChange()``). Each mutator either makes its whole
/// change or, when it throws, none of it (and registers nothing).
///
/// The editor owns what undo needs beyond the stack: the record of the changes its steps hold,
/// which it keeps valid across saves: ``PackageFile`` tells the tree's editor before and after each
/// save that points the tree at the saved files (and the saved step becomes the clean one). The tree holds the
/// editor weakly: once the editor is gone, changes are no longer recorded (steps registered
/// before keep working, as they hold the nodes they change).
public final class PackageEditor {
  /// The root directory of the package being edited; changes to any node below it are recorded.
  public let root: PackageNode
  /// Where the editor registers its undo actions.
  public let undoStack: UndoStack
  /// The changes held by undo steps, kept valid across saves (``willSave()``).
  let history = UndoHistory()
  /// While set, changes are refused with this error (see ``readingOnly(_:)``).
  var readOnlyViolation: PackageError?
  var isReadOnly = false
  /// How many changes the tree reported (a ``Document`` tells from it whether an edit changed anything).
  var changesRecorded = 0

  /// Creates an editor for the tree under `root` and installs it there: from now on every change
  /// made to the tree through ``PackageNode``'s mutators registers its undo on `undoStack`.
  /// - Parameters:
  ///   - root: The package's root directory node. An editor installed on it before is replaced.
  ///   - undoStack: The stack to register undo actions on; a new one by default.
  public init(root: PackageNode, undoStack: UndoStack = UndoStack()) {
    self.root = root
    self.undoStack = undoStack
    root.recorder = self
  }

  deinit {
    if root.recorder === self { root.recorder = nil }
  }

  /// Whether the undo stack is away from the saved state: ``UndoStack/hasUnsavedChanges``.
  /// (``Document/hasUnsavedChanges`` also asks the tree itself.)
  public var hasUnsavedChanges: Bool { undoStack.hasUnsavedChanges }

  /// Runs `body` with the tree read-only: every change attempted in it (through any node of the
  /// tree) is refused, and this method then throws, even if `body` swallowed the error. A refusal
  /// is forgotten when the outermost call returns or throws: it never reaches a later call.
  /// - Throws: What `body` throws, or ``PackageError`` with code `invalidArgument` naming the path
  ///   of the first change attempted.
  public func readingOnly<Result>(_ body: (PackageNode) throws -> Result) throws -> Result {
    let wasReadOnly = isReadOnly
    isReadOnly = true
    defer {
      isReadOnly = wasReadOnly
      if !wasReadOnly { readOnlyViolation = nil }
    }
    let result = try body(root)
    if !wasReadOnly, let violation = readOnlyViolation { throw violation }
    return result
  }

  /// Registers the undo of `change` on `stack`. The action needs nothing from the editor (it holds
  /// the nodes it changes), so undo keeps working after the editor is gone; it is registered with
  /// the package's root as target, so `removeAllActions(withTarget: root)` removes it.
  static func registerInverse(
    of change: PackageChange, on stack: UndoStack, history: UndoHistory?, target: PackageNode, actionName: String?,
    coalescingKey: AnyHashable?
  ) {
    guard stack.isUndoRegistrationEnabled else {
      if !stack.isUndoing && !stack.isRedoing { stack.noteChange() }
      return
    }
    let inverse = history?.add(change.inverted) ?? UndoHistory.Record(change.inverted)
    // The stack runs its own actions, so it is alive whenever this closure is: `unowned` avoids a cycle.
    stack.registerUndo(withTarget: target, coalescingKey: coalescingKey, defaultActionName: actionName) {
      [unowned stack, weak history] root in
      let made = try inverse.change.apply()
      registerInverse(of: made, on: stack, history: history, target: root, actionName: nil, coalescingKey: nil)
    }
  }

}

extension PackageEditor: TreeRecorder {
  func willChange(at path: @autoclosure () -> String) throws {
    guard isReadOnly else { return }
    let error = PackageError(
      .invalidArgument, "cannot change a package while reading it (make changes in edit { }):", path: path())
    if readOnlyViolation == nil { readOnlyViolation = error }
    throw error
  }

  func didChange(_ change: PackageChange, actionName: String, coalescingKey: AnyHashable?) {
    changesRecorded &+= 1
    Self.registerInverse(
      of: change, on: undoStack, history: history, target: root, actionName: actionName, coalescingKey: coalescingKey)
  }

  /// Keeps what undo steps need from files that the save is about to replace (``PackageFile``
  /// calls it, so undo keeps working across a save without the app's help). Best effort and never
  /// fails; an undo step whose earlier contents could not be kept throws when undone after the
  /// save, rather than restore wrong bytes.
  /// - Complexity: O(*h*) in the node states held by undo steps, plus reading the earlier
  ///   versions of files edited or removed since they were loaded (files of 1 MiB or more are mapped).
  func willSave() {
    history.pinForSave(root: root)
  }

  /// After the save: nodes held only by undo steps stop referring to files the save deleted, and
  /// the undo stack's current step becomes the saved one (the document is clean).
  func didSave() {
    history.didSave(root: root)
    undoStack.markSaved()
  }
}
