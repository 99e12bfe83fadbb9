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

  /// ``pull(acceptingRollback:progress:)``'s work, without its deadline.
  func pullNow(acceptingRollback: Bool, progress: SyncProgress.Handler?) async throws -> PullResult {
    let synced = folder.state(remote.name)
    guard let (head, etag) = try await head() else {
      if synced != nil { throw missingHead() }
      return .remoteEmpty
    }
    if !acceptingRollback { try checkNotRolledBack(head, synced: synced) }
    let packagePath = folder.packagePath
    let conflicts = ConflictMerge(
      theirs: head.conflicts, local: try await localConflicts(), base: synced?.conflicts ?? [])
    if synced?.tree == head.tree, conflicts.isEmpty {
      // The ETag too: a watch's poll compares it (PackageSync+Watch.swift), and would pull again at every poll.
      if synced?.conflicts != head.conflictTrees || synced?.generation != head.generation || synced?.etag != etag {
        try await BlockingIO.run { [folder, remote] in
          try folder.setState(
            remote.name, tree: head.tree, etag: etag, conflicts: head.conflictTrees, generation: head.generation)
        }
      }
      return .upToDate
    }
    progress?(SyncProgress(phase: .scanning, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let before = try await BlockingIO.run { try VersionStore.scan(packageAt: packagePath, lockHeld: false) }
    if before.root == head.tree {
      // Only the list of conflict versions may differ: keep the remote's new ones, resolve those resolved there.
      let trees = try await conflicts.fetch(
        with: self, trees: try await fetchHeadTrees(head, known: before.trees), localBlobs: Set(before.blobs.keys))
      try await BlockingIO.run { [folder, remote] in
        let lock = try PackageLock(forPackageAt: packagePath)
        defer { lock.unlock() }
        let now = try VersionStore.scan(packageAt: packagePath, lockHeld: true)
        _ = try conflicts.apply(to: packagePath, folder: folder, trees: trees, localBlobs: now.blobs)
        try folder.setState(
          remote.name, tree: head.tree, etag: etag, conflicts: head.conflictTrees, generation: head.generation)
        folder.clearObjects()
      }
      return .upToDate
    }
    progress?(SyncProgress(phase: .downloading, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    var trees = try await fetchHeadTrees(head, known: before.trees)
    if let base = synced?.tree { trees = try await fetchTrees(from: base, known: trees) }
    let theirs = try FlatTree(root: head.tree, trees: trees)
    var needed = Set(theirs.values.filter { $0.kind == .file }.map(\.reference))
    // Text files both sides changed are merged line-wise: their base's bytes are needed too.
    let baseBefore = try synced.map { try FlatTree(root: $0.tree, trees: trees) } ?? [:]
    let oursBefore = try FlatTree(root: before.root, trees: trees.merging(before.trees) { a, _ in a })
    let sizes = theirs
    let planned = TreeMerge(base: baseBefore, ours: oursBefore, theirs: theirs)
    // Names the package's file system cannot hold refuse the pull before anything is downloaded (and
    // again below, on the state the pull then finds).
    try await BlockingIO.run { [folder = self.folder] in try planned.result.checkNamesFit(in: folder, "cannot pull") }
    var bases: [String: Int64] = [:]
    for path in planned.conflicts {
      guard let base = TextConflict.mergeable(base: baseBefore[path], oursBefore[path], theirs[path]) else { continue }
      bases[base.reference] = base.size
    }
    needed.subtract(before.blobs.keys)
    try await fetchBlobs(needed.sorted(), sizes: sizes, progress: progress)
    // A base the remote no longer holds (its state was pruned) merges nothing: that file is a conflict version.
    for hash in Set(bases.keys).subtracting(needed).subtracting(before.blobs.keys).sorted() {
      do {
        try await fetchBlobs([hash], sizes: bases, into: folder.objects, progress: progress) { key in
          SyncError(.noSuchKey, "the base of a text merge is no longer on the remote:", key: key)
        }
      } catch let error as SyncError where error.code == .noSuchKey {
        continue
      }
    }
    trees = try await conflicts.fetch(with: self, trees: trees, localBlobs: Set(before.blobs.keys))

    // The state this pull replaces is kept as a version; the files of it that the head holds too stay on the
    // remote (pinned there, RemotePins.swift), so that the version costs the files changed here, not a copy.
    let headBlobs = Set(theirs.values.filter { $0.kind == .file }.map(\.reference))
    let holding =
      await pin(head, etag: etag) ? RemoteHolding(remote: remote.name, tree: head.tree, blobs: headBlobs) : nil

    progress?(SyncProgress(phase: .saving, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
    let folder = self.folder
    let owner = ObjectIdentifier(self)
    let result = try await BlockingIO.run { [trees] () throws -> PullResult in
      let file = try PackageFile(at: packagePath, options: .holdLock)
      defer { file.close() }
      // Told to the monitors as this sync's save: a watch of this sync does not take its own pull for a local save.
      file.saveOwner = owner
      let now = try VersionStore.scan(packageAt: packagePath, lockHeld: true)
      var allTrees = trees
      for (hash, tree) in now.trees { allTrees[hash] = tree }
      let ours = try FlatTree(root: now.root, trees: allTrees)
      let base = try synced.map { try FlatTree(root: $0.tree, trees: allTrees) } ?? [:]
      var merge = TreeMerge(base: base, ours: ours, theirs: theirs)
      // The downloads are removed after the save (`clearObjects`): the blobs one file uses are handed over to it.
      let applier = TreeApplier(
        objects: folder.objects, localBlobs: now.blobs, packagePath: packagePath, handOver: true)
      // Text files both sides changed in different lines: the line-wise merge a local merging save makes.
      var texts: [String: Data] = [:]
      for path in merge.conflicts {
        guard let baseEntry = TextConflict.mergeable(base: base[path], ours[path], theirs[path]),
          let merged = TextConflict.merge(
            base: baseEntry, ours: packagePath.appending(path), theirs: theirs[path]!, blobs: applier)
        else { continue }
        texts[path] = merged
      }
      merge.conflicts.removeAll { texts[$0] != nil }
      merge.merged += texts.keys.sorted()
      // Before anything is kept or written, on the package as it is now.
      try merge.result.checkNamesFit(in: folder, "cannot pull")
      var version: Int?
      if !merge.conflicts.isEmpty {
        version = try VersionStore.keepConflictVersion(ofPackageAt: packagePath, conflictPaths: merge.conflicts).id
      }
      // Another device's conflict versions, kept here too (before the save: their blobs may be the package's).
      _ = try conflicts.apply(to: packagePath, folder: folder, trees: allTrees, localBlobs: now.blobs)
      try applier.apply(merge.result, over: ours, to: file.root)
      for (path, data) in texts {
        _ = try file.root.setFile(at: path, contents: data)
        try file.root.setPermissions(theirs[path]!.permissions, at: path)
      }
      try file.save(options: [], previousStateHolding: holding)
      if let version { return .conflict(version: version, paths: merge.conflicts) }
      let fastForward = synced != nil && now.root == synced?.tree
      return fastForward ? .fastForwarded : .merged(paths: merge.merged.sorted())
    }
    try await BlockingIO.run { [remote] in
      try folder.setState(
        remote.name, tree: head.tree, etag: etag, conflicts: head.conflictTrees, generation: head.generation)
      folder.clearObjects()
    }
    return result
  }

  /// Downloads the blobs `hashes` into the sync folder's `objects/` (skipping those already there from an
  /// interrupted pull), each into `tmp/HASH.partial`, checked against its SHA-256, then renamed into place.
  ///
  /// A download cut short (a reset connection after the retries, a cancelled task, a killed process) keeps its
  /// partial file: the next attempt reads and hashes what it holds and asks only for the rest (a ranged GET). The
  /// whole is checked against its hash at the end; a partial file that was not the blob's beginning (torn by a
  /// crash) fails that check and the blob is downloaded again from its first byte.
  /// - Parameter progress: Called as bytes arrive: `bytesDone` counts the bytes received from the server, and
  ///   `bytesTotal` the bytes still to receive when the downloads started (kept partial files not counted).
  func fetchBlobs(_ hashes: [String], sizes entries: FlatTree, progress: SyncProgress.Handler?) async throws {
    var sizes: [String: Int64] = [:]
    for entry in entries.values where entry.kind == .file { sizes[entry.reference] = entry.size }
    try await fetchBlobs(hashes, sizes: sizes, into: folder.objects, progress: progress)
  }

  /// Downloads the blobs `hashes` (of sizes `sizeOf`) into `objects` as above, partial downloads in the sync
  /// folder's `tmp/`. A blob the remote does not have is the error `missingError` makes of its key (by default the
  /// head's damage, ``brokenHead(missing:)``).
  func fetchBlobs(
    _ hashes: [String], sizes sizeOf: [String: Int64], into objects: FilePath, progress: SyncProgress.Handler?,
    missingError: (@Sendable (String) -> SyncError)? = nil
  ) async throws {
    let temporary = folder.temporary
    let remoteObjects = try await unlock()
    // Blobs an interrupted pull left are used only if they still hash to their names: their renames were not
    // synced, so a crash of the machine may have left one empty or torn (it is then downloaded again).
    let (kept, partialBytes) = try await BlockingIO.run { () throws -> (Set<String>, Int64) in
      for directory in [objects, temporary] { try LocalFiles.makeDirectories(directory) }
      let left = hashes.filter { (try? LocalFiles.exists(objects.appending($0))) == true }
      let partial = hashes.reduce(Int64(0)) { total, hash in
        total + min(sizeOf[hash] ?? 0, (try? Syscalls.statusNoFollow(Self.partialPath(temporary, hash)).size) ?? 0)
      }
      return (Set(left.filter { Self.keepIfIntact(objects.appending($0), hash: $0) }), partial)
    }
    let missing = hashes.filter { !kept.contains($0) }
    let totalBytes = missing.reduce(Int64(0)) { $0 + (sizeOf[$1] ?? 0) } - partialBytes
    let counter = TransferCounter()
    try await forEachConcurrently(missing, width: downloadParallelism) { [self] hash in
      let partial = Self.partialPath(temporary, hash)
      let key = remoteObjects.blobKey(hash)
      let reported = NIOLockedValueBox(Int64(0))
      let chunkProgress: @Sendable (Int64) -> Void = { received in
        let more = reported.withLockedValue { reported in
          defer { reported = received }
          return received - reported
        }
        let (done, bytes) = counter.add(objects: 0, bytes: more)
        progress?(
          SyncProgress(
            phase: .downloading, objectsDone: done, objectsTotal: missing.count, bytesDone: bytes,
            bytesTotal: totalBytes))
      }
      var result: (etag: String, sha256: String, size: Int64, received: Int64)
      do { result = try await remoteObjects.downloadBlob(hash, to: partial, progress: chunkProgress) } catch let error
        as SyncError where error.code == .noSuchKey
      {
        throw missingError?(key) ?? brokenHead(missing: key)
      }
      if result.sha256 != hash, result.received < result.size {
        // The kept part was not the blob's beginning: once more, from the first byte.
        try await BlockingIO.run { try LocalFiles.remove(partial) }
        reported.withLockedValue { $0 = 0 }
        result = try await remoteObjects.downloadBlob(hash, to: partial, progress: chunkProgress)
      }
      guard result.sha256 == hash else {
        _ = try? await BlockingIO.run { try LocalFiles.remove(partial) }
        throw SyncError(.corrupt, "downloaded blob does not hash to its key (got \(result.sha256))", key: key)
      }
      try await BlockingIO.run { try LocalFiles.rename(partial, to: objects.appending(hash)) }
      let (done, bytes) = counter.add(objects: 1, bytes: 0)
      progress?(
        SyncProgress(
          phase: .downloading, objectsDone: done, objectsTotal: missing.count, bytesDone: bytes, bytesTotal: totalBytes)
      )
    }
  }

  /// Where the download of blob `hash` is kept until it is whole and checked.
  static func partialPath(_ temporary: FilePath, _ hash: String) -> FilePath {
    temporary.appending("\(hash).partial")
  }
}

extension PackageSync {
  /// Whether the file at `path` hashes to `hash`; removes it if it does not (or cannot be read).
  static func keepIfIntact(_ path: FilePath, hash: String) -> Bool {
    let intact = (try? ContentHash.ofFile(at: path)) == hash
    if !intact { try? LocalFiles.remove(path) }
    return intact
  }
}

extension SyncFolder {
  /// Removes the downloaded blobs once a save has taken them in.
  func clearObjects() {
    try? LocalFiles.remove(objects)
    try? LocalFiles.remove(temporary)
  }
}
