#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Edits a package tree so that every change can be undone: the model's mutating API, each
/// method registering its exact inverse on an ``UndoStack``.
///
///     let editor = PackageEditor(root: try PackageNode(contentsOf: path))
///     try editor.setFile(at: "Text.txt", contents: Data("Hello".utf8))
///     try editor.renameChild(named: "Image.png", in: editor.root, to: "Photo.png")
///     editor.undoStack.undoMenuItemTitle     // "Undo Rename"
///     try editor.undoStack.undo()
///
/// Undo puts back the very same node objects, with the same change-tracking flags, so a subtree
/// that was removed and restored still reads from (and can be hard-linked from) where it was
/// loaded, and a node edited and then restored counts as unchanged again. Undo entries keep
/// references, never copies: a file's previous `Data` shares its storage, and the contents of
/// files that are moved, renamed or removed are never read.
///
/// Each method is one undo step with a default action name ("Rename", "Delete"); call them inside
/// ``UndoStack/group(named:coalescingKey:_:)`` to make several one step, or name it yourself.
/// Consecutive content edits to the same file coalesce into one step (typing); see
/// ``UndoStack/coalescingInterval``. With undo registration disabled, edits are still made and
/// mark the document changed (``UndoStack/noteChange()``).
///
/// Each method either makes its whole change or, when it throws, none of it.
/// Make every change to the tree through the editor: a change made behind its back can make
/// later undo steps fail (they then throw and change nothing).
public final class PackageEditor {
  /// The root directory of the package being edited.
  public let root: PackageNode
  /// Where the editor registers its undo actions.
  public let undoStack: UndoStack
  /// The changes held by undo steps, for ``prepareForSave()``.
  let history = UndoHistory()

  /// Creates an editor for the tree under `root`.
  /// - Parameters:
  ///   - root: The package's root directory node.
  ///   - undoStack: The stack to register undo actions on; a new one by default.
  public init(root: PackageNode, undoStack: UndoStack = UndoStack()) {
    self.root = root
    self.undoStack = undoStack
  }

  /// Whether the package differs from what was last saved: ``UndoStack/hasUnsavedChanges``.
  public var hasUnsavedChanges: Bool { undoStack.hasUnsavedChanges }

  /// A coalescing key for content edits to one node: typing into one file.
  struct ContentsKey: Hashable {
    let node: ObjectIdentifier
  }

  /// Runs an edit made through `recorder`'s primitives and registers its inverse, or rolls the
  /// edit back if it throws.
  @discardableResult
  func record<Result>(_ actionName: String, _ body: (ChangeRecorder) throws -> Result) throws -> Result {
    let recorder = ChangeRecorder()
    let result: Result
    do { result = try body(recorder) } catch {
      recorder.rollBack()
      throw error
    }
    let change = recorder.finish()
    if !change.isEmpty { registerInverse(of: change, actionName: actionName, coalescingKey: recorder.coalescingKey) }
    return result
  }

  func registerInverse(of change: PackageChange, actionName: String?, coalescingKey: AnyHashable?) {
    Self.registerInverse(
      of: change, on: undoStack, history: history, target: root, actionName: actionName,
      coalescingKey: coalescingKey)
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
    stack.registerUndo(withTarget: target, coalescingKey: coalescingKey) { [unowned stack, weak history] root in
      let made = try inverse.change.apply()
      registerInverse(of: made, on: stack, history: history, target: root, actionName: nil, coalescingKey: nil)
    }
    if let actionName { stack.setDefaultActionName(actionName) }
  }

  /// Keeps what undo steps need from files that a save is about to replace: call just before
  /// saving the package (``Document`` does). Best effort and never fails; an undo step whose
  /// earlier contents could not be kept throws when undone after the save, rather than restore
  /// wrong bytes.
  /// - Complexity: O(*h*) in the node states held by undo steps, plus reading the earlier
  ///   versions of files edited or removed since they were loaded (files of 1 MiB or more are mapped).
  public func prepareForSave() {
    history.pinForSave(root: root)
  }

  /// Call after a successful save that followed ``prepareForSave()``: nodes held only by undo
  /// steps stop referring to files the save deleted.
  public func didSave() {
    history.didSave(root: root)
  }

  /// The directory that holds `path` and the last name in it, creating missing directories on
  /// the way (recorded) if `create` is true.
  func parentAndName(of path: String, create: Bool, _ recorder: ChangeRecorder) throws -> (PackageNode, String) {
    var components = try PackageNode.components(of: path)
    guard let name = components.popLast() else {
      throw PackageError(.invalidName, "path names no entry:", path: path)
    }
    let directory =
      create ? try makeDirectories(components, recorder) : try root.node(at: components.joined(separator: "/"))
    try directory.requireKind(.directory)
    return (directory, name)
  }

  func makeDirectories(_ components: [String], _ recorder: ChangeRecorder) throws -> PackageNode {
    var node = root
    for component in components {
      if let child = try node.children()[component] {
        try child.requireKind(.directory)
        node = child
      } else {
        let directory = try PackageNode(directoryWithChildren: [:])
        try recorder.attach(directory, to: node, as: component)
        node = directory
      }
    }
    return node
  }
}
