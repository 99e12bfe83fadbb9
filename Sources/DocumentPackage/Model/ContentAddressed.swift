/// A source whose contents — a file's bytes, or a directory's whole subtree — are named by an address
/// that changes whenever they do: a version store's blob or tree object, by the store and its hash. Two
/// unchanged nodes whose sources have one address hold the same thing, so a comparison of two versions
/// reads neither: it costs what differs, not what the versions hold.
protocol ContentAddressed: AnyObject {
  /// The address of the contents, the same for equal contents of one store.
  var contentAddress: String { get }
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
