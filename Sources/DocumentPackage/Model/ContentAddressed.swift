/// A source whose contents — a file's bytes, or a directory's whole subtree — are named by an address
/// that changes whenever they do: a version store's blob or tree object, by the store and its hash. Two
/// unchanged nodes whose sources have one address hold the same thing, so a comparison of two versions
/// reads neither: it costs what differs, not what the versions hold.
protocol ContentAddressed: AnyObject {
  /// The address of the contents, the same for equal contents of one store.
  var contentAddress: String { get }

  /// For a directory's source: the children that differ between this directory and `other`'s, each side's
  /// sorted by name; an entry the same on both sides (the same name, kind, mode, time, size and address) is
  /// left out, since comparing it would find nothing. Nil when the two cannot be compared so (then both are
  /// listed). What a comparison of two versions lists of two folders of a thousand entries that differ in one.
  /// - Throws: ``PackageError`` naming either directory if it cannot be read.
  func childrenDiffering(from other: any ContentAddressed) throws -> (mine: [PackageNode], others: [PackageNode])?
}

extension ContentAddressed {
  func childrenDiffering(from other: any ContentAddressed) throws -> (mine: [PackageNode], others: [PackageNode])? {
    nil
  }
}

extension PackageNode {
  /// The address of what this node holds, when it comes unchanged from a ``ContentAddressed`` source: a
  /// file whose contents were not replaced, or a directory not listed yet (nothing below it can have been
  /// changed in memory). `nil` otherwise.
  var contentAddress: String? {
    switch kind {
    case .file:
      guard !edits.contains(.contents), case .source(let source) = fileBody else { return nil }
      return (source as? any ContentAddressed)?.contentAddress
    case .directory:
      guard heldChildren == nil, let source = listingSource as? any ContentAddressed else { return nil }
      return source.contentAddress
    case .symlink:
      return nil
    }
  }
}

extension PackageNode {
  /// The children that differ between this directory and `other` (see
  /// ``ContentAddressed/childrenDiffering(from:)``), when both come unchanged and unlisted from sources that can
  /// tell; nil otherwise. Neither directory is listed.
  func childrenDiffering(from other: PackageNode) throws -> (mine: [PackageNode], others: [PackageNode])? {
    guard kind == .directory, other.kind == .directory, isUntouchedListing, other.isUntouchedListing,
      let source = listingSource as? any ContentAddressed,
      let otherSource = other.listingSource as? any ContentAddressed
    else { return nil }
    return try source.childrenDiffering(from: otherSource)
  }

  /// Whether this directory is neither listed nor holds a child probed alone (which an edit could have changed).
  private var isUntouchedListing: Bool { heldChildren == nil && probedChildren == nil && probedRemovals == nil }
}
