/// An edit to a package tree as its effect: links made and broken between directories and
/// children, and the states of the nodes it touched before and after. Applying its inverse
/// undoes it exactly, with the same node objects, so untouched subtrees keep their on-disk origin.
struct PackageChange {
  enum Link {
    case attach(PackageNode, to: PackageNode, as: String)
    case detach(PackageNode, from: PackageNode, as: String)

    var inverted: Link {
      switch self {
      case .attach(let child, let directory, let key): return .detach(child, from: directory, as: key)
      case .detach(let child, let directory, let key): return .attach(child, to: directory, as: key)
      }
    }
  }

  struct StateChange {
    let node: PackageNode
    var before: PackageNode.UndoState
    var after: PackageNode.UndoState
  }

  var links: [Link] = []
  var states: [StateChange] = []

  var isEmpty: Bool { links.isEmpty && states.isEmpty }

  /// The change that undoes this one.
  var inverted: PackageChange {
    PackageChange(
      links: links.reversed().map(\.inverted),
      states: states.map { StateChange(node: $0.node, before: $0.after, after: $0.before) })
  }

  /// Makes the links and sets the after-states.
  ///
  /// - Returns: The change actually made: the same links, with each node's state as it was just
  ///   before (which differs from ``StateChange/before`` when later edits were merged into this
  ///   step by coalescing). Its inverse is the exact redo.
  /// - Throws: What making a link throws; what was done is then undone first.
  func apply() throws -> PackageChange {
    var actual = self
    for index in actual.states.indices { actual.states[index].before = actual.states[index].node.undoState }
    // Everything that can fail is done before anything changes: first the states to set...
    let targets = try states.map { try $0.node.restorable($0.after) }
    // ...then the links, undone again if one fails.
    var done = 0
    do {
      for link in links {
        try Self.perform(link)
        done += 1
      }
    } catch {
      for link in links[..<done].reversed() { try? Self.perform(link.inverted) }
      throw error
    }
    for (change, target) in zip(states, targets) { change.node.restore(target) }
    return actual
  }

  static func perform(_ link: Link) throws {
    switch link {
    case .attach(let child, let directory, let key): try directory.adopt(child, as: key)
    case .detach(let child, let directory, _): directory.detach(child)
    }
  }
}

/// Builds a ``PackageChange`` while a mutator makes its edit through the model's primitives, and
/// rolls the edit back if the mutator fails (see ``PackageNode/mutate(_:at:_:)``).
final class ChangeCollector {
  private var change = PackageChange()
  /// Set by an edit that may merge with the previous step (see ``UndoStack/beginGrouping(coalescingKey:)``).
  var coalescingKey: AnyHashable?
  /// Set by a mutator whose undo name depends on what it did ("Add File" rather than "Edit").
  var actionName: String?

  /// Records `node`'s state before the edit touches it; call before changing it.
  func touch(_ node: PackageNode) {
    // A mutator touches a handful of nodes: a linear search is cheaper than a set.
    guard !change.states.contains(where: { $0.node === node }) else { return }
    change.states.append(.init(node: node, before: node.undoState, after: node.undoState))
  }

  func attach(_ child: PackageNode, to directory: PackageNode, as key: String) throws {
    touch(directory)
    try directory.adopt(child, as: key)
    change.links.append(.attach(child, to: directory, as: key))
  }

  /// A child a path walk looked up alone is taken out of its directory without listing it: the
  /// directory keeps its name among its ``PackageNode/probedRemovals``, and a later listing leaves it out.
  /// - Throws: As ``PackageNode/children()``: any other directory not listed yet is listed first, so
  ///   that what it holds on disk besides `child` is in the model when its membership changes.
  func detach(_ child: PackageNode) throws {
    guard let directory = child.parent else { return }
    if directory.loadedChildren == nil, directory.probedChildren?[child.name] !== child {
      _ = try directory.children()
    }
    touch(directory)
    let key = child.name
    directory.detach(child)
    change.links.append(.detach(child, from: directory, as: key))
  }

  /// The change made, with each touched node's state now.
  func finish() -> PackageChange {
    for index in change.states.indices { change.states[index].after = change.states[index].node.undoState }
    return change
  }

  /// Puts everything back as it was before the edit.
  func rollBack() {
    for link in change.links.reversed() { try? PackageChange.perform(link.inverted) }
    for state in change.states { state.node.restore(state.before) }
  }
}
