import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The remote's history and its pruning.
//
// Every push, once its head moved, writes `states/STAMP-TREE` (STAMP: milliseconds since 1970, 13 digits, so
// that keys sort by time; the body is the head it wrote): the remote's own history of states, which another
// device can restore. `prune` keeps the newest N of them (N per remote: `Remote.keepStates`, default 10), the
// head with its conflict versions, and the states devices' versions keep files in (their pins, RemotePins.swift),
// marks every tree and blob they reach, and deletes every other object under
// `trees/` and `blobs/`, the older `states/` entries and stale locks; in the sync folder it removes the `trees/`
// no retained state reaches. It holds the remote's prune lock throughout (RemoteLock: no push runs meanwhile,
// so no object a push in flight relies on is deleted) and the package's lock (no local push or pull meanwhile).
//
// A push prunes by itself when it is cheap (`Remote.autoPrune`, off unless turned on): once its head moved, it
// lists `states/` and, when the history holds more than 2N states, runs the same prune keeping N — so the
// bucket holds at most 2N states and what they reach, and the prune's cost (a listing of `trees/` and `blobs/`,
// the deletes) falls on one push in N. It takes the prune lock after releasing its push lock, without waiting: a
// push or prune of another device running then skips it (the push succeeds and says so), and a later push
// prunes.

extension PackageSync {
  /// What a prune did.
  public struct PruneResult: Sendable, Hashable {
    /// The states kept (the newest ones of the remote's history).
    public var keptStates: Int
    /// The trees and blobs kept: what the kept states, the head and its conflict versions reach.
    public var keptObjects: Int
    /// The trees, blobs and older history entries deleted.
    public var removedObjects: Int
  }

  /// How many states a prune keeps when the remote does not say (``Remote/keepStates``).
  public static let defaultKeptStates = 10

  /// Deletes from the remote (and the sync folder's tree cache) what no retained state reaches: keeps the newest
  /// `count` states of the remote's history, the head and its unresolved conflict versions, and the states that
  /// devices' versions keep files in (pinned by their pulls). Safe against pushes
  /// from other devices: it holds the remote's prune lock, and pushes wait for it (as it waits for them).
  /// - Parameter count: How many states to keep (at least 1; nil: ``Remote/keepStates``, else
  ///   ``defaultKeptStates``).
  /// - Returns: What was kept and removed.
  /// - Throws: ``SyncError`` with code `remote` when the remote has no head although this package synced with it,
  ///   or stays locked by another device's push; others as the client's.
  /// - Complexity: One listing of the remote, the retained states' trees (fetched unless the sync folder has
  ///   them), and one DELETE per object removed.
  @discardableResult
  public func prune(keepingStates count: Int? = nil) async throws -> PruneResult {
    try await withinDeadline("prune") { try await self.pruneNow(keepingStates: count) }
  }

  /// ``prune(keepingStates:)``'s work, without its deadline.
  func pruneNow(keepingStates count: Int?) async throws -> PruneResult {
    let keep = max(1, count ?? remote.keepStates ?? Self.defaultKeptStates)
    let packagePath = folder.packagePath
    let lock = try await BlockingIO.run { Handed(try PackageLock(forPackageAt: packagePath)) }
    defer { lock.value.unlock() }
    _ = try await unlock()  // a wrong passphrase fails before the remote's lock is taken
    return try await withRemoteLock(.prune) { try await sweep(keeping: keep) }
  }

  /// The prune's mark and sweep, keeping the newest `keep` states, with the package's lock and the remote's prune
  /// lock held.
  func sweep(keeping keep: Int) async throws -> PruneResult {
    guard let (head, _) = try await head() else {
      if folder.state(remote.name) != nil { throw missingHead() }
      return PruneResult(keptStates: 0, keptObjects: 0, removedObjects: 0)
    }
    let objects = try await unlock()
    let states = try await client.list(prefix: location.key("states/")).map(\.key).sorted(by: >)
    let keptStates = states.prefix(keep)
    var roots = [head.tree] + head.conflicts.map(\.tree) + (try await stateRoots(Array(keptStates)))
    // The states devices' versions keep files in (RemotePins.swift).
    roots += try await pinnedTrees()
    // Mark: every tree and blob a retained state reaches.
    var trees: [String: TreeObject] = [:]
    for root in Set(roots) {
      do { trees = try await fetchTrees(from: root, known: trees) } catch let error as SyncError
        where error.code == .noSuchKey && root != head.tree
      {
        continue  // a state whose objects are gone already keeps nothing
      }
    }
    var reached = Set(trees.keys.map(objects.treeKey))
    for tree in trees.values {
      for entry in tree.entries.values where entry.kind == .file { reached.insert(objects.blobKey(entry.reference)) }
    }
    // Sweep.
    async let listedTrees = client.list(prefix: location.key("trees/"))
    async let listedBlobs = client.list(prefix: location.key("blobs/"))
    async let listedLocks = client.list(prefix: location.key("locks/"))
    let listed = try await (listedTrees + listedBlobs).map(\.key)
    let unreached = listed.filter { !reached.contains($0) }
    var doomed = unreached + states.dropFirst(keep)
    for lock in try await listedLocks {
      if let data = try? await client.get(lock.key, limit: 1 << 12).data,
        RemoteLock(key: lock.key, data: (try? objects.opened(data, kind: .lock, key: lock.key)) ?? Data())?.isStale
          == true
      {
        doomed.append(lock.key)
      }
    }
    try await forEachConcurrently(doomed) { [client] key in try await client.delete(key) }
    let local = LocalTrees(path: folder.treeStore)
    let keptTrees = Set(trees.keys)
    try await BlockingIO.run { try local.remove { !keptTrees.contains($0) } }
    return PruneResult(
      keptStates: keptStates.count, keptObjects: listed.count - unreached.count, removedObjects: doomed.count)
  }

  /// After a push moved the head: prunes when ``Remote/autoPrune`` allows it and the remote's history holds more
  /// than twice the states a prune keeps (N, ``Remote/keepStates``), keeping N. The check is one listing of
  /// `states/` (at most 2N + 1 keys, a few more when other devices push meanwhile); the prune itself runs once
  /// every N pushes or so, so its listing of the remote and its deletes are shared by N pushes. It does not wait
  /// for the remote's lock: when another device pushes or prunes, it is skipped (thrown, for the push to say so),
  /// and the next push tries again.
  /// - Returns: What the prune did, or nil when none was due.
  /// - Throws: ``SyncError`` with code `remote` when the remote is busy; others as ``prune(keepingStates:)``'s.
  func pruneIfDue() async throws -> PruneResult? {
    guard remote.autoPrune == true else { return nil }
    let keep = max(1, remote.keepStates ?? Self.defaultKeptStates)
    guard try await client.list(prefix: location.key("states/")).count > 2 * keep else { return nil }
    return try await withRemoteLock(.prune, wait: .zero) { try await sweep(keeping: keep) }
  }
}

extension LocalTrees {
  /// Removes the trees whose hash `isGarbage` says so.
  /// - Throws: `PackageError` if a folder of the cache cannot be listed.
  func remove(where isGarbage: (String) -> Bool) throws {
    guard (try? LocalFiles.exists(path)) == true else { return }
    let (_, prefixes) = try Syscalls.io("cannot list", path: path.string) { () throws(Errno) in
      try Syscalls.listDirectory(path)
    }
    for prefix in prefixes where prefix.status.kind == .directory {
      let directory = path.appending(prefix.rawName)
      let (_, entries) = try Syscalls.io("cannot list", path: directory.string) { () throws(Errno) in
        try Syscalls.listDirectory(directory)
      }
      for entry in entries where isGarbage(prefix.name + entry.name) {
        try? LocalFiles.remove(directory.appending(entry.rawName))
      }
    }
  }
}
