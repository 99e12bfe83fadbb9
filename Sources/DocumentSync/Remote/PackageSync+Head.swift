import DocumentPackage

// A head that is missing or names objects that are not there: said as such, never taken for an empty remote.
//
// The sync folder's `state/NAME` records the root tree of the last push or pull with a remote. A remote with no
// head although that record exists lost its head on the server (deleted by hand, a bucket emptied): `pull` does
// not say "remote is empty" and `push` does not start a new history that other devices would pull as a
// fast-forward; both fail, naming the repair. A head whose trees or blobs are missing on the server fails a pull
// or clone when the first missing object is asked for, with the same repair. The repair is
// `docpkg push --force-new-head` (`push(forcingNewHead: true)`) on a device that has the document: it uploads
// every object of the package's state the remote lacks (checked by listing, not assumed from the synced state)
// and writes the head conditionally on the broken one (or on there being none). It refuses when the head is whole:
// then the remote simply has changes to pull, and replacing its head would drop them.

extension PackageSync {
  /// The repair named by every error about a broken head.
  var repairHint: String {
    // A clone's destination was not made: the repair runs on a copy of the document, then the clone again.
    if cloning {
      return
        "to make a copy's state the remote's head, run 'docpkg push --force-new-head PACKAGE' with PACKAGE a copy of the document, then clone again"
    }
    return "to make this package's state the remote's head, run 'docpkg push --force-new-head \(folder.packagePath)'"
  }

  /// The error for a remote without a head that this package pushed to or pulled from before.
  func missingHead() -> SyncError {
    SyncError(
      .remote,
      "the remote has no head although this package pushed or pulled it before (deleted on the server?); nothing was changed; \(repairHint); missing",
      key: headKey)
  }

  /// The error for a head that names an object the remote does not hold.
  func brokenHead(missing key: String) -> SyncError {
    SyncError(
      .remote,
      "the remote's head names '\(key)', which is not on the remote (deleted or lost on the server); nothing was changed; \(repairHint) (from a device that has the document); head",
      key: headKey)
  }

  /// The trees of `head`'s state (from `known`, the sync folder's `trees/`, or the remote); a tree missing on
  /// the remote is the head's damage, said with the repair.
  func fetchHeadTrees(_ head: RemoteHead, known: [String: TreeObject] = [:]) async throws -> [String: TreeObject] {
    do { return try await fetchTrees(from: head.tree, known: known) } catch let error as SyncError
      where error.code == .noSuchKey
    {
      throw brokenHead(missing: error.key)
    }
  }

  /// The key of an object `head`'s state names that the remote does not hold, or nil when its state is whole:
  /// every tree and blob it reaches is in one listing of `trees/` and `blobs/` (a repair's check, not a push's).
  package func firstMissingObject(of head: RemoteHead) async throws -> String? {
    let objects = try await unlock()
    async let listedTrees = objects.names(in: "trees")
    async let listedBlobs = objects.names(in: "blobs")
    let (haveTrees, haveBlobs) = try await (listedTrees, listedBlobs)
    guard haveTrees.contains(objects.name(head.tree)) else { return objects.treeKey(head.tree) }
    let trees: [String: TreeObject]
    do { trees = try await fetchTrees(from: head.tree, known: [:]) } catch let error as SyncError
      where error.code == .noSuchKey
    {
      return error.key
    }
    for (hash, tree) in trees {
      guard haveTrees.contains(objects.name(hash)) else { return objects.treeKey(hash) }
      for entry in tree.entries.values where entry.kind == .file && !haveBlobs.contains(objects.name(entry.reference)) {
        return objects.blobKey(entry.reference)
      }
    }
    return nil
  }
}
