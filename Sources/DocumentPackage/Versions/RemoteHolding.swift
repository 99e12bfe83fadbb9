/// A remote (DocumentSync) that holds the files of a state a save is about to replace, so that the version kept of
/// that state need not copy them: the version references them instead, and they are downloaded when it is read
/// (see ``PackageVersion/remote``).
///
/// A pull sets it on the save that brings the remote's state in (``PackageFile/save(options:previousStateHolding:)``): the
/// package's files whose bytes are also in the remote's head are the remote's to keep, and only the files changed
/// here since (which the remote does not have) are copied into the store.
package struct RemoteHolding: Sendable, Hashable {
  /// The remote's name.
  package var remote: String
  /// The root tree of the remote's state that holds ``blobs``: what keeps them on the remote (its prune keeps
  /// every state a device pinned).
  package var tree: String
  /// The blobs the remote holds, by SHA-256.
  package var blobs: Set<String>

  package init(remote: String, tree: String, blobs: Set<String>) {
    self.remote = remote
    self.tree = tree
    self.blobs = blobs
  }
}
