import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageSync {
  /// What a push did.
  public enum PushResult: Sendable, Hashable {
    /// The remote's head is already the package's state.
    case upToDate
    /// The head now names the package's state; `blobs` and `trees` objects were sent, and `bytes` bytes of blobs
    /// (as stored: sealed, for an encrypted remote; the parts of a multipart upload that an interrupted push had
    /// sent are not sent again, and not counted).
    case pushed(tree: String, blobs: Int, trees: Int, bytes: Int64)
  }
}

extension PackageSync {
  /// Uploads the blobs and trees the remote lacks, then moves the remote's head to the package's state with a
  /// conditional write. Holds the package's lock meanwhile (local saves wait).
  ///
  /// A push never starts a new history by itself: when the remote has no head although this package pushed or
  /// pulled it before (the head was deleted on the server), or its head names objects the remote lacks, the push
  /// fails and says so. `forcingNewHead` is the repair: it uploads every object of the package's state that the
  /// remote lacks (found by listing the remote) and makes that state the head, replacing the missing or broken
  /// one. It is refused when the head is whole (pull instead: replacing it would drop another device's changes).
  ///
  /// With ``Remote/autoPrune`` on, a push whose head moved then prunes the remote when its history holds more than
  /// twice ``Remote/keepStates`` states; ``lastAutoPrune`` says what that prune did, or why it failed or was
  /// skipped. The push succeeds either way.
  /// - Parameters:
  ///   - forcingNewHead: Replace a missing or broken head with the package's state (`docpkg push --force-new-head`).
  ///   - progress: Called as objects go up.
  /// - Throws: ``SyncError`` with code `preconditionFailed` when another device pushed first or the remote has
  ///   changes this package has not pulled (both say to pull first; ``sync(maximumAttempts:progress:)`` does),
  ///   `remote` when its head is missing or broken (naming the repair), `rolledBack` when its head is older than
  ///   the one this package took last; others as the client's.
  @discardableResult
  public func push(forcingNewHead: Bool = false, progress: SyncProgress.Handler? = nil) async throws -> PushResult {
    try await withinDeadline("push") { try await self.pushNow(forcingNewHead: forcingNewHead, progress: progress) }
  }

  /// ``push(forcingNewHead:progress:)``'s work, without its deadline.
  func pushNow(forcingNewHead: Bool, progress: SyncProgress.Handler?) async throws -> PushResult {
    autoPruneOutcome.withLockedValue { $0 = nil }
    // An encrypted remote's passphrase is checked first: a wrong one changes nothing, not even the stat cache.
    let objects = try await unlock()
    let packagePath = folder.packagePath
    let folder = self.folder
    let lock = try await BlockingIO.run { Handed(try PackageLock(forPackageAt: packagePath)) }
    defer { lock.value.unlock() }
    progress?(SyncProgress(phase: .scanning, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let snapshot = try await BlockingIO.run { try VersionStore.scan(packageAt: packagePath, lockHeld: true) }
    let current = try await head()
    let synced = folder.state(remote.name)
    let local = LocalTrees(path: folder.treeStore)
    let conflicts = try await localConflicts()
    let unresolved = conflicts.filter { !$0.isResolved }
    let conflictTrees = Set(unresolved.map(\.tree))
    if forcingNewHead {
      if let current, try await firstMissingObject(of: current.head) == nil {
        throw SyncError(
          .remote,
          "the remote's head is whole: nothing to repair (--force-new-head replaces only a missing or broken head); pull, then push; head",
          key: headKey)
      }
    } else if current == nil, synced != nil {
      throw missingHead()
    } else if let current {
      try checkNotRolledBack(current.head, synced: synced)
      if current.head.tree == snapshot.root, current.head.conflictTrees == conflictTrees {
        try await BlockingIO.run {
          local.add([snapshot.root], from: snapshot.trees)
          try folder.setState(
            self.remote.name, tree: snapshot.root, etag: current.etag, conflicts: conflictTrees,
            generation: current.head.generation)
        }
        await dropLeftoverUploads()
        return .upToDate
      }
      // The head's tree and its list of conflicts must be what this package last synced: else another device
      // changed them, and this push would drop its changes.
      guard let synced, synced.tree == current.head.tree, synced.conflicts == current.head.conflictTrees else {
        // Before sending the user to a pull, make sure a pull can work: a head naming a missing tree cannot.
        if try await client.head(objects.treeKey(current.head.tree)) == nil {
          throw brokenHead(missing: objects.treeKey(current.head.tree))
        }
        throw SyncError(
          .preconditionFailed,
          "the remote has changes this package has not pulled: pull, then push again (or run 'docpkg sync'); remote head",
          key: headKey)
      }
    }

    // Holding the remote's push lock from here until the head moved: no prune runs meanwhile (RemoteLock).
    let result = try await withRemoteLock(.push) {
      progress?(SyncProgress(phase: .comparing, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
      let journal = try await BlockingIO.run { PushJournal(path: folder.pushJournal(self.remote.name)) }
      // A repair trusts nothing it did not see on the remote: no base to stop at, one listing.
      let base = forcingNewHead || current == nil ? nil : synced?.tree
      var plan = try await BlockingIO.run { PushPlan(snapshot: snapshot, base: base, local: local) }
      // What the journal lists was sent by a push that did not move the head (killed, or it lost the race for the
      // head): no state names it, so a prune that ran since (on any device, between that push's lock and this
      // one's) may have deleted it. It is checked here, under this push's lock, like any object of unknown
      // presence; never skipped on the journal's word.
      let journaled = forcingNewHead ? [] : journal.sent
      if forcingNewHead || plan.blobs.count + plan.trees.count > Self.listingThreshold {
        // Many objects of unknown presence (a first push, or one after an interrupted push): one listing of the
        // remote is cheaper than asking for each.
        async let listedBlobs = objects.names(in: "blobs")
        async let listedTrees = objects.names(in: "trees")
        let (haveBlobs, haveTrees) = try await (listedBlobs, listedTrees)
        plan.blobs.removeAll { haveBlobs.contains(objects.name($0)) }
        plan.trees.removeAll { haveTrees.contains(objects.name($0)) }
      } else {
        // A few: small blobs are sent (a PUT costs what a HEAD does), big ones and what the journal lists only if
        // the remote lacks them.
        let asked =
          plan.blobs.filter { (snapshot.blobs[$0]?.size ?? 0) > Self.headCheckSize || journaled.contains($0) }
          .map(objects.blobKey) + plan.trees.filter { journaled.contains($0) }.map(objects.treeKey)
        let present = NIOLockedValueBox(Set<String>())
        try await forEachConcurrently(asked) { [self] key in
          if try await client.head(key) != nil { present.withLockedValue { _ = $0.insert(key) } }
        }
        let skip = present.withLockedValue { $0 }
        plan.blobs.removeAll { skip.contains(objects.blobKey($0)) }
        plan.trees.removeAll { skip.contains(objects.treeKey($0)) }
      }
      // The unresolved conflict versions the remote lacks go up with the state (from the version store).
      let newConflicts = unresolved.filter { !(current?.head.conflictTrees ?? []).contains($0.tree) || forcingNewHead }
      var extra = try await conflictObjects(
        newConflicts, local: forcingNewHead ? nil : local,
        plannedTrees: Set(plan.trees), plannedBlobs: Set(plan.blobs))
      let bigExtra = extra.blobs.filter { $0.2 > Self.headCheckSize }.map(\.0)
      let presentExtra = NIOLockedValueBox(Set<String>())
      try await forEachConcurrently(bigExtra) { [self] hash in
        if try await client.head(objects.blobKey(hash)) != nil { presentExtra.withLockedValue { _ = $0.insert(hash) } }
      }
      let skipExtra = presentExtra.withLockedValue { $0 }
      extra.blobs.removeAll { skipExtra.contains($0.0) }
      let blobs =
        plan.blobs.map { ($0, packagePath.appending(snapshot.blobs[$0]!.path), snapshot.blobs[$0]!.size) }
        + extra.blobs
      let trees = plan.trees.map { ($0, snapshot.trees[$0]!.encoded()) } + extra.trees
      // Bytes as stored (sealed, for an encrypted remote). Progress counts them as parts go up; a resumed
      // multipart upload's parts that had arrived count as done when its blob is, and not as sent.
      let totalBytes = blobs.reduce(Int64(0)) { $0 + objects.storedSize($1.2) }
      let objectsTotal = blobs.count + trees.count
      let counter = TransferCounter()
      let sentBytes = TransferCounter()

      try await forEachConcurrently(blobs) { [self] (hash, file, size) in
        let reported = NIOLockedValueBox(Int64(0))
        let sent = try await uploadBlob(hash, from: file, to: objects) { bytes in
          let delta = reported.withLockedValue { before in
            let delta = max(0, bytes - before)
            before += delta
            return delta
          }
          let (objects, done) = counter.add(objects: 0, bytes: delta)
          progress?(
            SyncProgress(
              phase: .uploading, objectsDone: objects, objectsTotal: objectsTotal, bytesDone: done,
              bytesTotal: totalBytes))
        }
        await journal.note(hash)
        _ = sentBytes.add(objects: 1, bytes: sent)
        let resumed = max(0, objects.storedSize(size) - reported.withLockedValue { $0 })
        let (objects, bytes) = counter.add(objects: 1, bytes: resumed)
        progress?(
          SyncProgress(
            phase: .uploading, objectsDone: objects, objectsTotal: objectsTotal, bytesDone: bytes,
            bytesTotal: totalBytes)
        )
      }
      // Trees after blobs, the head last: the head never names an object that is not there.
      try await forEachConcurrently(trees) { [self] (hash, data) in
        try await objects.put(objects.treeKey(hash), data, kind: .tree, contentHash: hash)
        await journal.note(hash)
        let (objects, bytes) = counter.add(objects: 1, bytes: 0)
        progress?(
          SyncProgress(
            phase: .uploading, objectsDone: objects, objectsTotal: objectsTotal, bytesDone: bytes,
            bytesTotal: totalBytes)
        )
      }
      try await BlockingIO.run { local.add([snapshot.root], from: snapshot.trees) }

      progress?(SyncProgress(phase: .updatingHead, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
      let newHead = RemoteHead(
        tree: snapshot.root, parent: current?.head.tree ?? synced?.tree,
        generation: max(current?.head.generation ?? 0, synced?.highestGeneration ?? 0) + 1, date: Date(),
        conflicts: conflicts.remoteConflicts)
      let etag: String
      do {
        etag = try await objects.put(
          headKey, newHead.encoded(), kind: .head, condition: current.map { .matches($0.etag) } ?? .absent)
      } catch let error as SyncError where error.code == .preconditionFailed {
        throw lostRace(error)
      } catch let error as SyncError where error.code == .transport || (error.status ?? 0) >= 500 {
        // The outcome is unknown (Ceph RGW answers 500 to the loser of two racing conditional PUTs): look.
        guard let now = try? await head() else { throw error }
        if now.head.tree == newHead.tree, now.head.parent == newHead.parent,
          now.head.conflictTrees == newHead.conflictTrees
        {
          etag = now.etag
        } else if now.etag != current?.etag {
          throw lostRace(error)
        } else {
          throw error
        }
      }
      try await BlockingIO.run { [remote] in
        try folder.setState(
          remote.name, tree: snapshot.root, etag: etag, conflicts: conflictTrees, generation: newHead.generation)
        journal.finish()
      }
      // The remote's history, for `prune` to keep the last states (best effort: the push succeeded already).
      _ = try? await objects.put(objects.stateKey(newHead), newHead.encoded(), kind: .state)
      await dropLeftoverUploads()
      return PushResult.pushed(tree: snapshot.root, blobs: blobs.count, trees: trees.count, bytes: sentBytes.bytes)
    }
    // The push succeeded: a prune that is due runs now (see PackageSync+Prune.swift), and never fails it.
    let outcome: Result<PruneResult, any Error>?
    do { outcome = try await pruneIfDue().map { .success($0) } } catch { outcome = .failure(error) }
    autoPruneOutcome.withLockedValue { $0 = outcome }
    return result
  }

  /// Above this many objects of unknown presence, a push lists the remote instead of asking for each.
  static let listingThreshold = 64
  /// Blobs bigger than this are sent only after a HEAD says the remote lacks them.
  static let headCheckSize: Int64 = 1 << 20
}

/// What a push may have to send: the package's trees that differ from the synced head's tree at the same path,
/// and the blobs of files that differ from the synced head's file at the same path — found by walking both
/// states from the root and stopping at every equal subtree, so a push after changing one file of 100,000 looks
/// at the trees on that file's path only.
struct PushPlan {
  /// Trees to send, subtrees first.
  var trees: [String] = []
  /// Blobs that may be missing.
  var blobs: [String] = []
  private var seenTrees: Set<String> = []
  private var seenBlobs: Set<String> = []

  init(snapshot: PackageScan, base: String?, local: LocalTrees) {
    walk(snapshot.root, base, snapshot: snapshot, local: local)
  }

  /// Notes what the tree `hash` needs sent that the tree `old` (synced before) did not have, subtrees
  /// before the trees naming them: with an explicit stack of the trees being walked, not recursion
  /// (the package chooses its depth).
  private mutating func walk(_ hash: String, _ old: String?, snapshot: PackageScan, local: LocalTrees) {
    struct Level {
      let hash: String
      let entries: [(name: String, entry: TreeEntry)]
      let oldTree: TreeObject?
      var index = 0
    }
    func enter(_ hash: String, _ old: String?) -> Level? {
      guard hash != old, !seenTrees.contains(hash), let tree = snapshot.trees[hash] else { return nil }
      seenTrees.insert(hash)
      return Level(
        hash: hash, entries: tree.entries.map { ($0.key, $0.value) }, oldTree: old.flatMap { local.tree($0) })
    }
    guard let first = enter(hash, old) else { return }
    var stack = [first]
    while !stack.isEmpty {
      let top = stack.count - 1
      guard stack[top].index < stack[top].entries.count else {
        let level = stack.removeLast()
        trees.append(level.hash)
        continue
      }
      let (name, entry) = stack[top].entries[stack[top].index]
      stack[top].index += 1
      let before = stack[top].oldTree?.entries[name]
      switch entry.kind {
      case .directory:
        if let level = enter(entry.reference, before?.kind == .directory ? before?.reference : nil) {
          stack.append(level)
        }
      case .file:
        if before?.kind == .file, before?.reference == entry.reference { continue }
        if seenBlobs.insert(entry.reference).inserted { blobs.append(entry.reference) }
      case .symlink:
        break
      }
    }
  }
}

extension PackageSync {
  /// The error for a push whose head write lost to another device's.
  func lostRace(_ error: SyncError) -> SyncError {
    SyncError(
      .preconditionFailed,
      "another device pushed first (nothing was overwritten): pull, then push again (or run 'docpkg sync'); remote head",
      key: headKey, status: error.status, serverCode: error.serverCode, serverMessage: error.serverMessage)
  }
}

/// Objects and bytes done so far, shared by concurrent transfers.
final class TransferCounter: Sendable {
  private let state = NIOLockedValueBox((0, Int64(0)))
  /// The bytes so far.
  var bytes: Int64 { state.withLockedValue { $0.1 } }
  func add(objects: Int, bytes: Int64) -> (Int, Int64) {
    state.withLockedValue {
      $0.0 += objects
      $0.1 += bytes
      return $0
    }
  }
}
