extension PackageNode {
  /// Visits this node and every node below it, depth first, children in ``sortedChildren()`` order.
  ///
  /// Directories are listed as the walk reaches them; nothing is read from files.
  /// - Parameters:
  ///   - maxDepth: How deep to go: 0 visits only this node, 1 its children too; `nil` for no limit.
  ///   - visit: Called with each node, its path relative to this node (empty for this node) and
  ///     its depth (0 for this node). Return `false` to skip a directory's children.
  /// - Throws: The first error from listing a directory or from `visit`.
  /// - Complexity: O(*n* log *k*) for *n* nodes in directories of at most *k* children.
  public func walk(maxDepth: Int? = nil, _ visit: (_ node: PackageNode, _ path: String, _ depth: Int) throws -> Bool)
    throws
  {
    // An explicit stack, not recursion: the depth of a package is the input's to choose.
    var pending: [(node: PackageNode, path: String, depth: Int)] = [(self, "", 0)]
    while let (node, path, depth) = pending.popLast() {
      guard try visit(node, path, depth), node.kind == .directory else { continue }
      if let maxDepth, depth >= maxDepth { continue }
      let prefix = path.isEmpty ? "" : path + "/"
      for child in try node.sortedChildren().reversed() { pending.append((child, prefix + child.name, depth + 1)) }
    }
  }
}
