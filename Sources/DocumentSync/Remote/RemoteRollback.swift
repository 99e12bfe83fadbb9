import DocumentPackage

// A head put back: refused by a device that saw a newer one.
//
// Anyone who can write the bucket (or a careless tool, or a restored backup of it) can put back an older head
// object. Taken as it is, a pull would see "only the remote changed" and roll the package back, and a push would
// build on it. So every head carries a generation (RemoteHead: the replaced head's plus one), the sync folder's
// `state/NAME` records the generation of the last head this device took, and a pull or push refuses a head whose
// generation is lower, or equal with another tree (a fork: two heads of one generation), before it changes
// anything, in one line that names the way to take it anyway: `docpkg pull --accept-rollback`
// (`pull(acceptingRollback: true)`). A push after that numbers its head above the highest generation this device
// ever saw, so the devices that saw the newer head take it.
//
// On an encrypted remote heads are sealed with the remote's key, so a rollback can only be a replay of a head the
// devices wrote, and this check catches it on every device that saw a newer one. On a plain remote it catches a
// replay too; a forged head with a higher generation is beyond it (anyone who can write the bucket can write one).
// A device that never saw the newer head (a fresh clone, one that did not sync since) cannot tell.

extension PackageSync {
  /// Throws unless `head` is the head this package last took from the remote (`synced`) or a later one.
  /// - Throws: ``SyncError`` with code `rolledBack` naming the head.
  func checkNotRolledBack(_ head: RemoteHead, synced: SyncedState?) throws {
    guard let synced, synced.generation > 0 else { return }
    let older = head.generation < synced.generation
    let fork = head.generation == synced.generation && head.tree != synced.tree
    guard older || fork else { return }
    let what =
      older
      ? "is older than the one this device took last (generation \(head.generation), after \(synced.generation))"
      : "is not the one this device took last, though of the same generation (\(head.generation))"
    throw SyncError(
      .rolledBack,
      "the remote's head \(what): put back on the server?; nothing was changed; to take it anyway, run 'docpkg pull --accept-rollback \(folder.packagePath)'; head",
      key: headKey)
  }
}
