import DocumentPackage
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
  /// - Parameter progress: Called as objects arrive.
  /// - Throws: ``SyncError`` (`corrupt` for an object that does not match its key), `PackageError` from the save.
  @discardableResult
  public func pull(progress: SyncProgress.Handler? = nil) async throws -> PullResult {
    guard let (head, etag) = try await head() else { return .remoteEmpty }
    let packagePath = folder.packagePath
    let synced = folder.state(remote.name)
    if synced?.tree == head.tree { return .upToDate }
    progress?(SyncProgress(phase: .scanning, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let before = try await BlockingIO.run { try VersionStore.scan(packageAt: packagePath, lockHeld: false) }
    if before.root == head.tree {
      _ = try await fetchTrees(from: head.tree, known: before.trees)
      try await BlockingIO.run { [folder, remote] in try folder.setState(remote.name, tree: head.tree, etag: etag) }
      return .upToDate
    }
    progress?(SyncProgress(phase: .downloading, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    var trees = try await fetchTrees(from: head.tree, known: before.trees)
    if let base = synced?.tree { trees = try await fetchTrees(from: base, known: trees) }
    let theirs = try FlatTree(root: head.tree, trees: trees)
    var needed = Set(theirs.values.filter { $0.kind == .file }.map(\.reference))
    // Text files both sides changed are merged line-wise: their base's bytes are needed too.
    let baseBefore = try synced.map { try FlatTree(root: $0.tree, trees: trees) } ?? [:]
    let oursBefore = try FlatTree(root: before.root, trees: trees.merging(before.trees) { a, _ in a })
    var sizes = theirs
    let planned = TreeMerge(base: baseBefore, ours: oursBefore, theirs: theirs)
    // Names the package's file system cannot hold refuse the pull before anything is downloaded (and
    // again below, on the state the pull then finds).
    try await BlockingIO.run { [folder = self.folder] in try planned.result.checkNamesFit(in: folder, "cannot pull") }
    for path in planned.conflicts {
      guard let base = TextConflict.mergeable(base: baseBefore[path], oursBefore[path], theirs[path]) else { continue }
      needed.insert(base.reference)
      sizes["\u{0}base/\(path)"] = base
    }
    needed.subtract(before.blobs.keys)
    try await fetchBlobs(needed.sorted(), sizes: sizes, progress: progress)

    progress?(SyncProgress(phase: .saving, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
    let folder = self.folder
    let result = try await BlockingIO.run { [trees] () throws -> PullResult in
      let file = try PackageFile(at: packagePath, options: .holdLock)
      defer { file.close() }
      let now = try VersionStore.scan(packageAt: packagePath, lockHeld: true)
      var allTrees = trees
      for (hash, tree) in now.trees { allTrees[hash] = tree }
      let ours = try FlatTree(root: now.root, trees: allTrees)
      let base = try synced.map { try FlatTree(root: $0.tree, trees: allTrees) } ?? [:]
      var merge = TreeMerge(base: base, ours: ours, theirs: theirs)
      let applier = TreeApplier(objects: folder.objects, localBlobs: now.blobs, packagePath: packagePath)
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
      try applier.apply(merge.result, over: ours, to: file.root)
      for (path, data) in texts {
        _ = try file.root.setFile(at: path, contents: data)
        try file.root.setPermissions(theirs[path]!.permissions, at: path)
      }
      try file.save()
      if let version { return .conflict(version: version, paths: merge.conflicts) }
      let fastForward = synced != nil && now.root == synced?.tree
      return fastForward ? .fastForwarded : .merged(paths: merge.merged.sorted())
    }
    try await BlockingIO.run { [remote] in
      try folder.setState(remote.name, tree: head.tree, etag: etag)
      folder.clearObjects()
    }
    return result
  }

  /// Downloads the blobs `hashes` into the sync folder's `objects/` (skipping those already there from an
  /// interrupted pull), each under a temporary name, checked against its SHA-256, then renamed into place.
  func fetchBlobs(_ hashes: [String], sizes entries: FlatTree, progress: SyncProgress.Handler?) async throws {
    let objects = folder.objects
    let temporary = folder.temporary
    // Blobs an interrupted pull left are used only if they still hash to their names: their renames were not
    // synced, so a crash of the machine may have left one empty or torn (it is then downloaded again).
    let kept = try await BlockingIO.run {
      for directory in [objects, temporary] { try LocalFiles.makeDirectories(directory) }
      let left = hashes.filter { (try? LocalFiles.exists(objects.appending($0))) == true }
      return Set(left.filter { Self.keepIfIntact(objects.appending($0), hash: $0) })
    }
    let missing = hashes.filter { !kept.contains($0) }
    var sizes: [String: Int64] = [:]
    for entry in entries.values where entry.kind == .file { sizes[entry.reference] = entry.size }
    let sizeOf = sizes
    let totalBytes = missing.reduce(Int64(0)) { $0 + (sizeOf[$1] ?? 0) }
    let counter = TransferCounter()
    try await forEachConcurrently(missing, width: downloadParallelism) { [self] hash in
      let partial = temporary.appending(TemporaryName.make("download", for: hash))
      let key = blobKey(hash)
      do {
        let result = try await client.download(key, toFile: partial)
        guard result.sha256 == hash else {
          throw SyncError(.corrupt, "downloaded blob does not hash to its key (got \(result.sha256))", key: key)
        }
        try await BlockingIO.run { try LocalFiles.rename(partial, to: objects.appending(hash)) }
      } catch {
        _ = try? await BlockingIO.run { try LocalFiles.remove(partial) }
        throw error
      }
      let (done, bytes) = counter.add(objects: 1, bytes: sizeOf[hash] ?? 0)
      progress?(
        SyncProgress(
          phase: .downloading, objectsDone: done, objectsTotal: missing.count, bytesDone: bytes, bytesTotal: totalBytes)
      )
    }
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
