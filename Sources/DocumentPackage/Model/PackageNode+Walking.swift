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
    try walk(path: "", depth: 0, maxDepth: maxDepth, visit)
  }

  private func walk(
    path: String, depth: Int, maxDepth: Int?, _ visit: (PackageNode, String, Int) throws -> Bool
  ) throws {
    guard try visit(self, path, depth), kind == .directory else { return }
    if let maxDepth, depth >= maxDepth { return }
    let prefix = path.isEmpty ? "" : path + "/"
    for child in try sortedChildren() {
      try child.walk(path: prefix + child.name, depth: depth + 1, maxDepth: maxDepth, visit)
    }
  }
}
