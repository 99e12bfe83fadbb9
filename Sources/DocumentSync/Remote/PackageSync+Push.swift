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

  /// ``push(forcingNewHead:progress:)``'s work, without its deadline: the phases in order (the protocol is in
  /// PackageSync.swift's header).
  func pushNow(forcingNewHead: Bool, progress: SyncProgress.Handler?) async throws -> PushResult {
    autoPruneOutcome.withLockedValue { $0 = nil }
    // An encrypted remote's passphrase is checked first: a wrong one changes nothing, not even the stat cache.
    let objects = try await unlock()
    let packagePath = folder.packagePath
    let lock = try await BlockingIO.run { Handed(try PackageLock(forPackageAt: packagePath)) }
    defer { lock.value.unlock() }
    progress?(SyncProgress(phase: .scanning, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let start = try await readPushStart()
    if try await checkHead(start, objects: objects, forcingNewHead: forcingNewHead) == .upToDate {
      try await recordUpToDate(start)
      return .upToDate
    }
    // Holding the remote's push lock from here until the head moved: no prune runs meanwhile (RemoteLock).
    let result = try await withRemoteLock(.push) {
      progress?(SyncProgress(phase: .comparing, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
      let journal = try await BlockingIO.run { [folder, remote] in PushJournal(path: folder.pushJournal(remote.name)) }
      let uploads = try await planUploads(start, objects: objects, journal: journal, forcingNewHead: forcingNewHead)
      let sent = try await send(uploads, to: objects, journal: journal, progress: progress)
      let local = LocalTrees(path: folder.treeStore)
      try await BlockingIO.run { local.add([start.snapshot.root], from: start.snapshot.trees) }
      progress?(SyncProgress(phase: .updatingHead, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
      let (newHead, etag) = try await moveHead(start, objects: objects)
      try await recordPush(start, head: newHead, etag: etag, journal: journal, objects: objects)
      return PushResult.pushed(
        tree: start.snapshot.root, blobs: uploads.blobs.count, trees: uploads.trees.count, bytes: sent)
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

/// What a push starts from, read with the package's lock held: the package's state, the remote's head, and what
/// this package last synced.
struct PushStart: Sendable {
  /// The package's state.
  let snapshot: PackageScan
  /// The remote's head and its ETag (nil: none).
  let current: (head: RemoteHead, etag: String)?
  /// What the package last synced with the remote.
  let synced: SyncedState?
  /// The package's conflict versions (resolved ones too: the head lists what is resolved).
  let conflicts: [SharedConflictVersion]

  /// The unresolved ones.
  var unresolved: [SharedConflictVersion] { conflicts.filter { !$0.isResolved } }
  /// The root trees of the unresolved ones: what the head must list.
  var conflictTrees: Set<String> { Set(unresolved.map(\.tree)) }
}

extension PackageSync {
  /// Phase 1: scans the package and reads the remote's head and the synced state.
  func readPushStart() async throws -> PushStart {
    let (folder, name) = (folder, remote.name)
    let snapshot = try await BlockingIO.run {
      try VersionStore.scan(packageAt: folder.packagePath, lockHeld: true)
    }
    let current = try await head()
    let synced = try await BlockingIO.run { folder.state(name) }
    return PushStart(snapshot: snapshot, current: current, synced: synced, conflicts: try await localConflicts())
  }

  /// What ``checkHead(_:objects:forcingNewHead:)`` found.
  enum HeadCheck { case upToDate, mustPush }

  /// Phase 2: whether the remote's head lets this push through: it must be the state this package last synced
  /// (else another device changed it, and the push would drop its changes), not older than the one taken last,
  /// and present unless nothing was synced; a repair (`forcingNewHead`) needs a missing or broken head.
  /// - Throws: ``SyncError`` as ``push(forcingNewHead:progress:)`` says.
  func checkHead(_ start: PushStart, objects: RemoteObjects, forcingNewHead: Bool) async throws -> HeadCheck {
    if forcingNewHead {
      if let current = start.current, try await firstMissingObject(of: current.head) == nil {
        throw SyncError(
          .remote,
          "the remote's head is whole: nothing to repair (--force-new-head replaces only a missing or broken head); pull, then push; head",
          key: headKey)
      }
      return .mustPush
    }
    guard let current = start.current else {
      if start.synced != nil { throw missingHead() }
      return .mustPush
    }
    try checkNotRolledBack(current.head, synced: start.synced)
    if current.head.tree == start.snapshot.root, current.head.conflictTrees == start.conflictTrees { return .upToDate }
    guard let synced = start.synced, synced.tree == current.head.tree, synced.conflicts == current.head.conflictTrees
    else {
      // Before sending the user to a pull, make sure a pull can work: a head naming a missing tree cannot.
      if try await client.head(objects.treeKey(current.head.tree)) == nil {
        throw brokenHead(missing: objects.treeKey(current.head.tree))
      }
      throw SyncError(
        .preconditionFailed,
        "the remote has changes this package has not pulled: pull, then push again (or run 'docpkg sync'); remote head",
        key: headKey)
    }
    return .mustPush
  }

  /// When the head is the package's state already: records it as synced.
  func recordUpToDate(_ start: PushStart) async throws {
    guard let current = start.current else { return }
    let (folder, name, local) = (folder, remote.name, LocalTrees(path: folder.treeStore))
    try await BlockingIO.run {
      local.add([start.snapshot.root], from: start.snapshot.trees)
      try folder.setState(
        name, tree: start.snapshot.root, etag: current.etag, conflicts: start.conflictTrees,
        generation: current.head.generation)
    }
    await dropLeftoverUploads()
  }

  /// Phase 5: writes the new head conditionally on the one read (or on there being none).
  /// - Returns: The head written and its ETag.
  /// - Throws: ``SyncError`` with code `preconditionFailed` when another device's push moved it first.
  func moveHead(_ start: PushStart, objects: RemoteObjects) async throws -> (RemoteHead, String) {
    let current = start.current
    let newHead = RemoteHead(
      tree: start.snapshot.root, parent: current?.head.tree ?? start.synced?.tree,
      generation: max(current?.head.generation ?? 0, start.synced?.highestGeneration ?? 0) + 1, date: Date(),
      conflicts: start.conflicts.remoteConflicts)
    do {
      let etag = try await objects.put(
        headKey, newHead.encoded(), kind: .head, condition: current.map { .matches($0.etag) } ?? .absent)
      return (newHead, etag)
    } catch let error as SyncError where error.code == .preconditionFailed {
      throw lostRace(error)
    } catch let error as SyncError where error.code == .transport || (error.status ?? 0) >= 500 {
      // The outcome is unknown (Ceph RGW answers 500 to the loser of two racing conditional PUTs): look.
      guard let now = try? await head() else { throw error }
      if now.head.tree == newHead.tree, now.head.parent == newHead.parent,
        now.head.conflictTrees == newHead.conflictTrees
      {
        return (newHead, now.etag)
      }
      throw now.etag != current?.etag ? lostRace(error) : error
    }
  }

  /// Phase 6: records the state pushed, drops the journal, writes the history entry `states/…` (best effort: the
  /// push succeeded already) and drops multipart uploads no later push needs.
  func recordPush(
    _ start: PushStart, head: RemoteHead, etag: String, journal: PushJournal, objects: RemoteObjects
  ) async throws {
    try await BlockingIO.run { [folder, remote] in
      try folder.setState(
        remote.name, tree: start.snapshot.root, etag: etag, conflicts: start.conflictTrees,
        generation: head.generation)
      journal.finish()
    }
    _ = try? await objects.put(objects.stateKey(head), head.encoded(), kind: .state)
    await dropLeftoverUploads()
  }

  /// The error for a push whose head write lost to another device's.
  func lostRace(_ error: SyncError) -> SyncError {
    SyncError(
      .preconditionFailed,
      "another device pushed first (nothing was overwritten): pull, then push again (or run 'docpkg sync'); remote head",
      key: headKey, status: error.status, serverCode: error.serverCode, serverMessage: error.serverMessage)
  }
}
