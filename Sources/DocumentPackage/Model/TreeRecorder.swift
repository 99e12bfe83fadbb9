/// Sees every change made to a package tree through the model's mutators: the one point where
/// changes are recorded for undo and where a read-only view refuses them.
///
/// Installed on a root node (``PackageNode/recorder``) by the undo layer (``PackageEditor``);
/// it sees changes to every node below that root. The model works without one: a tree with no
/// recorder is changed directly, each mutator still making its whole change or none.
///
/// Every public mutator of ``PackageNode`` (``PackageNode/addChild(_:)``, ``PackageNode/setFile(at:contents:createIntermediates:)``,
/// ``PackageNode/setPermissions(_:)``, …) runs as one edit: ``willChange(at:)`` first, then the
/// primitive changes (links made and broken between directories and children, node states set),
/// collected as a ``PackageChange``, then ``didChange(_:actionName:coalescingKey:)`` with that change.
/// If the mutator throws, its primitive changes are rolled back and the recorder hears nothing.
protocol TreeRecorder: AnyObject {
  /// Called before a mutator changes anything; throwing refuses the change (nothing is changed).
  /// - Parameter path: The path of what is about to change, for the error's message (computed
  ///   only when asked for: it walks up the tree).
  func willChange(at path: @autoclosure () -> String) throws
  /// Called after a mutator made `change` (never empty).
  /// - Parameters:
  ///   - actionName: The default name of the change for an Undo menu ("Rename").
  ///   - coalescingKey: Set for edits that may merge with the previous one (typing into a file).
  func didChange(_ change: PackageChange, actionName: String, coalescingKey: AnyHashable?)
  /// Called by ``PackageFile`` just before a save that will point the tree at the saved files:
  /// keep what is still needed from files the save may replace (undo steps' earlier contents).
  func willSave()
  /// Called by ``PackageFile`` after that save succeeded: the tree is now what the package holds.
  func didSave()
}

extension PackageNode {
  /// The recorder of the tree this node is in: the nearest one installed on it or an ancestor.
  /// - Complexity: O(*d*) for a node at depth *d*.
  var treeRecorder: (any TreeRecorder)? {
    var node: PackageNode? = self
    while let current = node {
      if let recorder = current.recorder { return recorder }
      node = current.parent
    }
    return nil
  }

  /// Runs one mutator: asks the tree's recorder, makes the change through `body`'s primitives,
  /// rolls it back if `body` throws, and reports it to the recorder.
  /// - Parameters:
  ///   - actionName: The change's default undo name.
  ///   - path: What is changed, for messages (evaluated only when refused).
  @discardableResult
  func mutate<Result>(
    _ actionName: String, at path: @autoclosure () -> String, _ body: (ChangeCollector) throws -> Result
  ) throws -> Result {
    let recorder = treeRecorder
    try recorder?.willChange(at: path())
    let changes = ChangeCollector()
    let result: Result
    do { result = try body(changes) } catch {
      changes.rollBack()
      throw error
    }
    guard let recorder else { return result }  // no one to tell: the after-states are not needed
    let change = changes.finish()
    if !change.isEmpty {
      recorder.didChange(change, actionName: changes.actionName ?? actionName, coalescingKey: changes.coalescingKey)
    }
    return result
  }

  /// A coalescing key for content edits to one node: typing into one file.
  struct ContentsKey: Hashable {
    let node: ObjectIdentifier
  }
}
