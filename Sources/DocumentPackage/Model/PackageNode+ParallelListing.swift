import Dispatch

extension PackageNode {
  /// Lists every directory below this one from disk ahead of a walk, on one worker per core, so that
  /// the walk that follows (``walk(maxDepth:_:)``, or ``sortedChildren()`` level by level) finds every
  /// listing in memory. What `docpkg inspect` does before printing a tree: listing a directory costs
  /// an `lstat` per entry, which dominates a listing of many small files, and the workers share it.
  ///
  /// The subtrees below the first few levels go to Dispatch's workers one by one, so a worker the
  /// system runs less (a busy machine) simply lists fewer of them. Nothing is thrown: a directory
  /// that cannot be listed stays unlisted, and the walk that follows meets the error where it would
  /// have without this call. Directories already listed are not read again; only directories on disk
  /// are listed (archives and versions are read on the calling thread, when walked).
  ///
  /// Call it only while no other thread uses this tree (nodes are not thread-safe); each worker
  /// touches only the nodes of the subtrees it lists.
  /// - Complexity: O(*n*) for *n* entries below this node, spread over the cores.
  public func listDirectoriesInParallel() {
    guard kind == .directory, isBackedByDisk else { return }
    // A frontier of subtrees wide enough to share: expand level by level on this thread.
    var frontier: [PackageNode] = [self]
    while frontier.count < 64 {
      var next: [PackageNode] = []
      for directory in frontier {
        guard let children = try? directory.sortedChildren() else { continue }
        next.append(contentsOf: children.lazy.filter { $0.kind == .directory && $0.isBackedByDisk })
      }
      if next.isEmpty { return }
      frontier = next
    }
    let subtrees = Subtrees(nodes: frontier)
    DispatchQueue.concurrentPerform(iterations: subtrees.nodes.count) { index in
      Self.listSubtree(subtrees.nodes[index])
    }
  }

  /// Lists `directory` and every directory below it, skipping what cannot be listed.
  /// (An explicit stack: a worker thread's stack is small, and the depth is the package's.)
  private static func listSubtree(_ directory: PackageNode) {
    var pending = [directory]
    while let directory = pending.popLast() {
      guard let children = try? directory.sortedChildren() else { continue }
      pending.append(contentsOf: children.lazy.filter { $0.kind == .directory && $0.isBackedByDisk })
    }
  }
}

/// The subtrees handed to the workers: each index is taken by one worker, which alone touches that subtree.
private struct Subtrees: @unchecked Sendable {
  let nodes: [PackageNode]
}

extension PackageNode {
  /// Lists the directories among `nodes` that are on disk and not listed yet, at once, on one worker
  /// per core: what a walk that visits a directory's subdirectories one after the other does with the
  /// next few of them, so that the `lstat`s of their entries are shared by the cores while what is in
  /// memory stays those few listings (`docpkg inspect`'s streaming walk). Nothing is thrown: a
  /// directory that cannot be listed stays unlisted, and the walk meets the error when it gets there.
  ///
  /// Call it only while no other thread uses these nodes; each worker touches one of them.
  /// - Complexity: O(*n*) for the *n* entries of the directories listed, spread over the cores.
  public static func listInParallel(_ nodes: some Sequence<PackageNode>) {
    let directories = Subtrees(
      nodes: nodes.filter { $0.kind == .directory && $0.isBackedByDisk && $0.loadedChildren == nil })
    switch directories.nodes.count {
    case 0: return
    case 1: _ = try? directories.nodes[0].sortedChildren()
    default:
      DispatchQueue.concurrentPerform(iterations: directories.nodes.count) { index in
        _ = try? directories.nodes[index].sortedChildren()
      }
    }
  }
}
