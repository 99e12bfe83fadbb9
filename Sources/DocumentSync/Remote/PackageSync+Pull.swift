import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageSync {
  /// What a pull did.
  public enum PullResult: Sendable, Hashable {
    /// The remote has no head yet (nothing was ever pushed).
    case remoteEmpty
    /// The package already has the remote's state (or the remote has nothing new).
    case upToDate
    /// The package had no changes since the last sync and now is the remote's state.
    case fastForwarded
    /// Both sides changed different paths: the package has both sides' changes (push it).
    case merged(paths: [String])
    /// Both sides changed `paths` differently: the package's state was kept as the unresolved conflict version
    /// `version`, then those paths took the remote's side (other changes of both sides are in the package).
    case conflict(version: Int, paths: [String])
  }
}

extension PackageSync {
  /// Brings the package to the remote's head with one atomic save: a fast-forward, a merge of disjoint changes,
  /// or a conflict version for overlapping ones (see ``PullResult``). Downloaded blobs are checked against their
  /// SHA-256 before use.
  ///
  /// A head older than the one this package took last (put back on the server) is refused, with code
  /// `rolledBack`, unless `acceptingRollback`.
  /// - Parameters:
  ///   - acceptingRollback: Take the remote's head even when it is older than the one this package took last.
  ///   - progress: Called as objects arrive.
  /// - Throws: ``SyncError`` (`rolledBack` for an older head; `corrupt` for an object that does not match its key;
  ///   `remote` when the remote has no head although this package synced with it before, or its head names an
  ///   object the remote lacks: both name the repair, ``push(forcingNewHead:progress:)``), `PackageError` from the
  ///   save.
  @discardableResult
  public func pull(acceptingRollback: Bool = false, progress: SyncProgress.Handler? = nil) async throws -> PullResult {
    try await withinDeadline("pull") {
      try await self.pullNow(acceptingRollback: acceptingRollback, progress: progress)
    }
  }

  /// ``pull(acceptingRollback:progress:)``'s work, without its deadline: the phases in order (the protocol is in
  /// PackageSync.swift's header).
  func pullNow(acceptingRollback: Bool, progress: SyncProgress.Handler?) async throws -> PullResult {
    let synced = folder.state(remote.name)
    guard let (head, etag) = try await head() else {
      if synced != nil { throw missingHead() }
      return .remoteEmpty
    }
    if !acceptingRollback { try checkNotRolledBack(head, synced: synced) }
    let conflicts = ConflictMerge(
      theirs: head.conflicts, local: try await localConflicts(), base: synced?.conflicts ?? [])
    if synced?.tree == head.tree, conflicts.isEmpty {
      // The ETag too: a watch's poll compares it (PackageSync+Watch.swift), and would pull again at every poll.
      if synced?.conflicts != head.conflictTrees || synced?.generation != head.generation || synced?.etag != etag {
        try await recordPulled(head, etag: etag)
      }
      return .upToDate
    }
    progress?(SyncProgress(phase: .scanning, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let packagePath = folder.packagePath
    let before = try await BlockingIO.run { try VersionStore.scan(packageAt: packagePath, lockHeld: false) }
    if before.root == head.tree {
      try await takeConflictList(conflicts, of: head, etag: etag, before: before)
      return .upToDate
    }
    progress?(SyncProgress(phase: .downloading, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    var plan = try await planPull(head, synced: synced, before: before)
    plan.trees = try await download(plan, before: before, conflicts: conflicts, progress: progress)
    // The state this pull replaces is kept as a version; the files of it that the head holds too stay on the
    // remote (pinned there, RemotePins.swift), so that the version costs the files changed here, not a copy.
    let holding =
      await pin(head, etag: etag) ? RemoteHolding(remote: remote.name, tree: head.tree, blobs: plan.headBlobs) : nil
    progress?(SyncProgress(phase: .saving, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
    let result = try await BlockingIO.run { [folder, plan, owner = ObjectIdentifier(self)] in
      try plan.save(
        packageAt: packagePath, folder: folder, synced: synced, conflicts: conflicts, holding: holding, owner: owner)
    }
    try await recordPulled(head, etag: etag)
    return result
  }

  /// The last phase: records `head` (read with `etag`) as the state synced, and removes the downloads the save took.
  func recordPulled(_ head: RemoteHead, etag: String) async throws {
    try await BlockingIO.run { [folder, remote] in
      try folder.setState(
        remote.name, tree: head.tree, etag: etag, conflicts: head.conflictTrees, generation: head.generation)
      folder.clearObjects()
    }
  }

  /// When the package is the head's state already and only the list of conflict versions differs: keeps the
  /// remote's new ones, resolves those resolved there.
  func takeConflictList(
    _ conflicts: ConflictMerge, of head: RemoteHead, etag: String, before: PackageScan
  ) async throws {
    let trees = try await conflicts.fetch(
      with: self, trees: try await fetchHeadTrees(head, known: before.trees), localBlobs: Set(before.blobs.keys))
    let (packagePath, folder) = (folder.packagePath, folder)
    try await BlockingIO.run {
      let lock = try PackageLock(forPackageAt: packagePath)
      defer { lock.unlock() }
      let now = try VersionStore.scan(packageAt: packagePath, lockHeld: true)
      _ = try conflicts.apply(to: packagePath, folder: folder, trees: trees, localBlobs: now.blobs)
    }
    try await recordPulled(head, etag: etag)
  }

  /// Plans the merge of `head` into the package as scanned (`before`), over the state last synced: fetches the
  /// trees it needs, and refuses names the package's file system cannot hold before anything is downloaded.
  func planPull(_ head: RemoteHead, synced: SyncedState?, before: PackageScan) async throws -> PullPlan {
    var trees = try await fetchHeadTrees(head, known: before.trees)
    if let base = synced?.tree { trees = try await fetchTrees(from: base, known: trees) }
    let theirs = try FlatTree(root: head.tree, named: "the head", trees: trees)
    // Text files both sides changed are merged line-wise: their base's bytes are needed too.
    let base = try synced.map { try FlatTree(root: $0.tree, named: "the state last synced", trees: trees) } ?? [:]
    let ours = try FlatTree(root: before.root, named: "the package", trees: trees.merging(before.trees) { a, _ in a })
    let planned = TreeMerge(base: base, ours: ours, theirs: theirs)
    // Checked again by the save, on the state the pull then finds.
    try await BlockingIO.run { [folder] in try planned.result.checkNamesFit(in: folder, "cannot pull") }
    var bases: [String: Int64] = [:]
    for path in planned.conflicts {
      guard let entry = TextConflict.mergeable(base: base[path], ours[path], theirs[path]) else { continue }
      bases[entry.reference] = entry.size
    }
    return PullPlan(trees: trees, theirs: theirs, textBases: bases)
  }

  /// Downloads the blobs of `plan`'s state the package lacks, the bases of its text merges (best effort: a base a
  /// prune removed merges nothing, and that file becomes a conflict version) and the remote's new conflict versions.
  /// - Returns: The trees, with the conflict versions'.
  func download(
    _ plan: PullPlan, before: PackageScan, conflicts: ConflictMerge, progress: SyncProgress.Handler?
  ) async throws -> [String: TreeObject] {
    let needed = plan.headBlobs.subtracting(before.blobs.keys)
    try await fetchBlobs(needed.sorted(), sizes: plan.theirs, progress: progress)
    for hash in Set(plan.textBases.keys).subtracting(needed).subtracting(before.blobs.keys).sorted() {
      do {
        try await fetchBlobs([hash], sizes: plan.textBases, into: folder.objects, progress: progress) { key in
          SyncError(.noSuchKey, "the base of a text merge is no longer on the remote:", key: key)
        }
      } catch let error as SyncError where error.code == .noSuchKey {
        continue
      }
    }
    return try await conflicts.fetch(with: self, trees: plan.trees, localBlobs: Set(before.blobs.keys))
  }
}
