// The one walk over stored trees: tree objects (``TreeObject``) named by their hash and reached from root trees, wherever
// they are kept — a version store's `objects/`, a remote's `trees/`, the sync folder's copies, a scan's trees in
// memory. Its callers: the version store collecting what removed versions leave (each tree once; a version is read
// one directory at a time, as it is listed: `VersionTreeListing`); DocumentSync flattening a state by path (every path), planning a push (each tree once, paired
// with the synced head's tree at the same path), copying trees into its tree cache, uploading conflict versions, and
// checking a remote (each tree once).
//
// The caller drives it, so a tree may be loaded from a file, from memory or over the network (`await`) with the same
// walk:
//
//     var walk = StoredTreeWalk<Void>(.eachTree(), roots: [.init(name: "version 3", hash: root)])
//     while let step = walk.next() {
//       switch step {
//       case .enter(let at):                       // pre-order: load the tree, say what to walk below it
//         guard let tree = load(at.hash) else { throw walk.damage() }
//         walk.descend(into: tree.subdirectories)
//       case .leave(let at): ...                   // post-order: every subtree walked was left before
//       }
//     }
//
// - Two modes, chosen per walk. `eachTree`: a tree is entered once however many paths and roots reach it (trees a
//   caller knows already can be skipped from the start): what copies, collects or checks objects. `eachPath`: a tree
//   two directories share is entered at each path: what builds a state path by path.
// - Below a tree, only the subtrees the caller hands to `descend` are walked (it may stop at an equal subtree, or
//   carry a context of its own to each, such as the tree at the same path of another state); a tree entered without
//   `descend` (absent, and the caller does not mind) is neither walked below nor left.
// - Damage is reported one way: `damage()` names the root (a version, a state) and the path below it of the tree
//   just entered, for the caller's own error (a `PackageError` naming the object's file, a `SyncError` its key).
// - No recursion: one frame per level on an explicit stack, so the tree's depth (the package's choice) costs memory,
//   not the call stack. A frame keeps its entry's name, not its path: the path is joined only when asked for.
import SystemPackage

/// One walk over stored trees, pre- and post-order, each tree once or every path (see the file's header).
package struct StoredTreeWalk<Context> {
  /// Which trees the walk enters.
  package enum Mode: Sendable {
    /// Each tree once, however many paths and roots reach it; the trees `skipping` names are taken as walked
    /// already (not entered, nothing below them walked).
    case eachTree(skipping: Set<String> = [])
    /// Every path: a tree reached at two paths is entered twice.
    case eachPath
  }

  /// A tree to walk: a root, named for damage reports ("version 3", "the head"), or a subdirectory below the tree
  /// entered last, named by its entry; with the caller's context for it.
  package struct Subtree {
    package var name: String
    package var hash: String
    package var context: Context

    package init(name: String, hash: String, context: Context) {
      self.name = name
      self.hash = hash
      self.context = context
    }
  }

  /// A tree to walk from (see ``Subtree``).
  package typealias Root = Subtree

  /// Where a step is: the root's name, the entry's name (empty at a root), the tree, the context the caller gave it,
  /// and how many levels below its root it is. Its path is ``path``, joined when asked for.
  package struct Position {
    package let root: String
    package let name: String
    package let hash: String
    package let context: Context
    package let depth: Int
  }

  /// One step of the walk.
  package enum Step {
    /// A tree is reached: load it, then ``descend(into:)`` to walk below it (or not).
    case enter(Position)
    /// Every subtree walked below this tree was left (only for a tree the caller descended into).
    case leave(Position)
  }

  private struct Frame {
    var position: Position
    var descended = false
    /// The subtrees still to walk, the next one last.
    var pending: [Subtree] = []
    var left = false
  }

  private var roots: [Root]
  private var nextRoot = 0
  private var stack: [Frame] = []
  /// The trees entered (with those skipped); nil when walking every path.
  private var entered: Set<String>?

  /// A walk of `roots`, in order, in `mode`.
  package init(_ mode: Mode, roots: [Root]) {
    self.roots = roots
    switch mode {
    case .eachTree(let skipping): entered = skipping
    case .eachPath: entered = nil
    }
  }

  /// The next step, or nil once every root was walked.
  package mutating func next() -> Step? {
    while true {
      if let top = stack.indices.last {
        guard !stack[top].left, stack[top].descended else {
          stack.removeLast()
          continue
        }
        if let subtree = stack[top].pending.popLast() {
          let parent = stack[top].position
          let position = Position(
            root: parent.root, name: subtree.name, hash: subtree.hash, context: subtree.context,
            depth: parent.depth + 1)
          if let step = enter(position) { return step }
          continue
        }
        stack[top].left = true
        return .leave(stack[top].position)
      }
      guard nextRoot < roots.count else { return nil }
      let root = roots[nextRoot]
      nextRoot += 1
      let position = Position(root: root.name, name: "", hash: root.hash, context: root.context, depth: 0)
      if let step = enter(position) { return step }
    }
  }

  private mutating func enter(_ position: Position) -> Step? {
    if entered != nil, entered!.insert(position.hash).inserted == false { return nil }
    stack.append(Frame(position: position))
    return .enter(position)
  }

  /// Walks `root` too, after the roots given before (a tree that arrives later, such as a download).
  package mutating func add(_ root: Root) {
    roots.append(root)
  }

  /// After ``Step/enter(_:)``: the subtrees to walk below the tree entered, in order (each is entered, and left,
  /// before the next); the tree is left after them.
  package mutating func descend(into subtrees: [Subtree]) {
    stack[stack.count - 1].descended = true
    stack[stack.count - 1].pending = subtrees.reversed()
  }

  /// The path of the last step's tree below its root (`a/b`; empty at a root).
  /// - Complexity: O(*d*) for its depth *d*.
  package var path: String {
    stack.dropFirst().map(\.position.name).joined(separator: "/")
  }

  /// The damage of the tree the last step entered: it is missing or does not read.
  package func damage() -> StoredTreeDamage {
    let position = stack[stack.count - 1].position
    return StoredTreeDamage(root: position.root, path: path, hash: position.hash)
  }
}

extension StoredTreeWalk.Subtree where Context == Void {
  package init(name: String, hash: String) { self.init(name: name, hash: hash, context: ()) }
}

/// A tree object a walk over stored trees could not read (missing, or not what its hash names), with where it was
/// met: what every walk of ``StoredTreeWalk`` reports, in the caller's own error.
package struct StoredTreeDamage: Error, Sendable, Hashable, CustomStringConvertible {
  /// The root it was reached from ("version 3", "the head").
  package var root: String
  /// Its directory's path below that root (empty: the root tree itself).
  package var path: String
  /// The tree object's hash.
  package var hash: String

  /// Where it was met: "version 3, at a/b" (or "version 3, its root").
  package var place: String { path.isEmpty ? "\(root), its root" : "\(root), at \(path)" }

  /// "the tree object of version 3, at a/b, is missing or damaged".
  package var description: String { "the tree object of \(place), is missing or damaged" }
}

extension TreeObject {
  /// Its subdirectories as subtrees of a walk (``StoredTreeWalk``), with no context.
  package var subdirectories: [StoredTreeWalk<Void>.Subtree] {
    entries.values.filter { $0.kind == .directory }.map { .init(name: $0.name, hash: $0.reference) }
  }
}
