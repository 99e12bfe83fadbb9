extension PackageNode {
  /// Drops this directory's listing, when it can be read again as it was: the directory is on disk
  /// (or listed by a `DirectoryListingSource`, as an archive read in place is), nothing in it was changed in memory, none of its subdirectories holds a listing
  /// (forget those first: a walk does so as it leaves each directory), and no undo layer watches the
  /// tree. Children a path walk looked up alone (see `PackageNode+Probing.swift`) are dropped alike. The next ``children()`` lists it again. What a walk over a large package does with each
  /// directory it is done with (`docpkg inspect`), so that its memory is that of the directories on
  /// its way, not of the package.
  /// - Returns: Whether the listing was dropped.
  @discardableResult
  public func forgetListing() -> Bool {
    let fromSource = listingSource != nil
    guard kind == .directory, fromSource || isBackedByDisk, edits.isEmpty, let children = heldChildren,
      treeRecorder == nil
    else { return false }
    for child in children.values {
      guard child.edits.isEmpty, fromSource || child.origin != nil,
        child.kind != .directory || child.heldChildren == nil
      else { return false }
    }
    for child in children.values where child.parent === self { child.parent = nil }
    loadedChildren = nil  // also drops sortedChildrenCache
    probedChildren = nil
    return true
  }
}
