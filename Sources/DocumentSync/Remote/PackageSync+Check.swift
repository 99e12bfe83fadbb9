import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Checking the remote, and repairing it from this device (restic's `check` and `repair` are the model).
//
// What must be on the remote is what its retained states reach: the head and the conflict versions it lists, every
// state of the history (`states/`) and every state a device's versions pin (`pins/`). `check` walks their trees and
// compares with one listing of `trees/` and `blobs/`:
//   1. a tree: present, and it parses and hashes to its name (it is read anyway to go on walking; a copy in the
//      sync folder's tree cache spares the download, except with `readingData`);
//   2. a blob: present with the size its tree entry implies (sealed, for an encrypted remote); with
//      `readingData`, downloaded and hashed too (opened, for an encrypted remote).
// An object that fails is damaged: missing, of the wrong size, or not what its name says (overwritten on the server,
// torn). With `repairing`, each damaged object this device has — the package's files, the version store's objects,
// the tree cache — is uploaded again (as a push would: sealed for an encrypted remote) while the remote's push lock
// is held (no prune deletes meanwhile); what no copy here can restore is listed, for another device to repair.
// A tree that cannot be read and that this device lacks hides what is below it: its blobs are not checked, said so.

extension PackageSync {
  /// An object of the remote that a check found damaged.
  public struct Damage: Sendable, Hashable {
    /// The object's key.
    public var key: String
    /// What is wrong, in words (`missing`, `12 bytes, expected 40`, `does not hash to its name`).
    public var problem: String
    /// Whether the check uploaded it again from this device.
    public var repaired: Bool
  }

  /// What a check found.
  public struct CheckResult: Sendable, Hashable {
    /// The states checked: the head, its conflict versions, the history's and the pinned ones.
    public var states: Int
    /// The trees and blobs they reach.
    public var objects: Int
    /// The damaged objects, in key order.
    public var damage: [Damage]
    /// Whether everything checked is whole now (nothing damaged, or all of it repaired).
    public var isWhole: Bool { damage.allSatisfy(\.repaired) }
  }

  /// Checks that every tree and blob the remote's retained states reach is there, with the right size (and, with
  /// `readingData`, the right hash), and with `repairing` uploads again each damaged one this device has.
  /// - Parameters:
  ///   - readingData: Download every blob and check its hash (costs the whole remote's bytes).
  ///   - repairing: Upload again the damaged objects this device has.
  ///   - progress: Called as blobs are read (with `readingData`).
  /// - Returns: What was checked, and the damage found (repaired or not).
  /// - Throws: ``SyncError`` with code `remote` when the remote has no head although this package synced with it;
  ///   the client's errors.
  /// - Complexity: One listing of the remote, every retained state's trees (from the tree cache when there),
  ///   and with `readingData` every blob's bytes.
  public func check(
    readingData: Bool = false, repairing: Bool = false, progress: SyncProgress.Handler? = nil
  ) async throws -> CheckResult {
    try await withinDeadline("remote check") {
      try await self.checkNow(readingData: readingData, repairing: repairing, progress: progress)
    }
  }

  private func checkNow(readingData: Bool, repairing: Bool, progress: SyncProgress.Handler?) async throws
    -> CheckResult
  {
    let objects = try await unlock()
    guard let (head, _) = try await head() else {
      if folder.state(remote.name) != nil { throw missingHead() }
      return CheckResult(states: 0, objects: 0, damage: [])
    }
    let states = try await client.list(prefix: location.key("states/")).map(\.key)
    let roots = Set([head.tree] + head.conflicts.map(\.tree) + (try await stateRoots(states)))
      .union(try await pinnedTrees())
    async let listedTrees = client.list(prefix: location.key("trees/"))
    async let listedBlobs = client.list(prefix: location.key("blobs/"))
    var sizes: [String: Int64] = [:]
    for object in try await listedTrees + listedBlobs { sizes[object.key] = object.size }

    // The copies this device has: the package's files and trees, the version store's objects, the tree cache.
    let packagePath = folder.packagePath
    let scan = try await BlockingIO.run { try VersionStore.scan(packageAt: packagePath, lockHeld: false) }
    let local = LocalTrees(path: folder.treeStore)
    let localTree: @Sendable (String) -> TreeObject? = { hash in
      if let tree = scan.trees[hash] ?? local.tree(hash) { return tree }
      guard let file = try? VersionStore.objectFile(ofPackageAt: packagePath, hash: hash),
        let data = (try? LocalFiles.read(file)) ?? nil, ContentHash.hex(SHA256.hash(data: data)) == hash
      else { return nil }
      return TreeObject(decoding: data)
    }

    // 1. The trees, walked from every root: the StoredTreeWalk of each tree once.
    var damage: [String: (problem: String, hash: String, isTree: Bool)] = [:]
    var trees: [String: TreeObject] = [:]
    var seen = Set<String>()
    var walk = StoredTreeWalk<Void>(.eachTree(), roots: roots.sorted().map { .init(name: "state \($0)", hash: $0) })
    while let step = walk.next() {
      guard case .enter(let at) = step else { continue }
      let hash = at.hash
      seen.insert(hash)
      let key = objects.treeKey(hash)
      let cached = try await BlockingIO.run { localTree(hash) }
      var tree: TreeObject?
      if sizes[key] == nil {
        damage[key] = ("missing", hash, true)
      } else if let cached, !readingData {
        let expected = objects.storedSize(Int64(cached.encoded().count))
        if sizes[key] != expected { damage[key] = ("\(sizes[key] ?? 0) bytes, expected \(expected)", hash, true) }
        tree = cached
      } else {
        do { tree = try await objects.tree(hash) } catch let error as SyncError
          where error.code == .corrupt || error.code == .noSuchKey
        {
          damage[key] = (
            error.code == .noSuchKey ? "missing" : "does not hash to its name, or does not open", hash, true
          )
        }
      }
      guard let walked = tree ?? cached else { continue }
      trees[hash] = walked
      walk.descend(into: walked.subdirectories)
    }
    let unwalked = seen.subtracting(trees.keys)

    // 2. The blobs: present with their size; with `readingData`, hashed.
    var blobs: [String: Int64] = [:]
    for tree in trees.values {
      for entry in tree.entries.values where entry.kind == .file { blobs[entry.reference] = entry.size }
    }
    for (hash, size) in blobs {
      let key = objects.blobKey(hash)
      let expected = objects.storedSize(size)
      if sizes[key] == nil {
        damage[key] = ("missing", hash, false)
      } else if sizes[key] != expected {
        damage[key] = ("\(sizes[key] ?? 0) bytes, expected \(expected)", hash, false)
      }
    }
    if readingData {
      let unread = blobs.keys.filter { damage[objects.blobKey($0)] == nil }.sorted()
      let bad = try await readBlobs(unread, sizes: blobs, from: objects, progress: progress)
      for hash in bad { damage[objects.blobKey(hash)] = ("does not hash to its name, or does not open", hash, false) }
    }

    // 3. The repair, from this device's copies.
    var repaired = Set<String>()
    let toRepair = damage.values.map { ($0.hash, $0.isTree) }
    if repairing, !toRepair.isEmpty {
      repaired = try await withRemoteLock(.push) {
        try await self.reupload(toRepair, to: objects, scan: scan, localTree: localTree)
      }
    }
    var found = damage.map { key, value in
      Damage(key: key, problem: value.problem, repaired: repaired.contains(key))
    }
    for hash in unwalked.sorted() where damage[objects.treeKey(hash)] == nil {
      found.append(Damage(key: objects.treeKey(hash), problem: "not read", repaired: false))
    }
    return CheckResult(
      states: roots.count, objects: trees.count + blobs.count, damage: found.sorted { $0.key < $1.key })
  }

  /// The root trees of the history entries `keys` (`states/STAMP-TREE`): from the key for a plain remote, from the
  /// (sealed) body for an encrypted one, whose keys name the tree by its keyed hash. An entry gone meanwhile is
  /// skipped.
  func stateRoots(_ keys: [String]) async throws -> [String] {
    let objects = try await unlock()
    guard objects.isSealed else { return keys.compactMap { $0.split(separator: "-").last.map(String.init) } }
    var roots: [String] = []
    for key in keys {
      guard let data = try? await client.get(key, limit: 1 << 16).data else { continue }
      roots.append(try RemoteHead(decoding: objects.opened(data, kind: .state, key: key), key: key).tree)
    }
    return roots
  }

  /// Downloads the blobs `hashes` into the sync folder's `checking/`, hashing each, and removes them.
  /// - Returns: The hashes whose object does not hash to its name (or does not open).
  private func readBlobs(
    _ hashes: [String], sizes: [String: Int64], from objects: RemoteObjects, progress: SyncProgress.Handler?
  ) async throws -> Set<String> {
    let checking = folder.path.appending("checking")
    _ = try await BlockingIO.run { try LocalFiles.makeDirectories(checking) }
    let bad = NIOLockedValueBox(Set<String>())
    let counter = TransferCounter()
    let total = hashes.reduce(Int64(0)) { $0 + (sizes[$1] ?? 0) }
    do {
      try await forEachConcurrently(hashes, width: downloadParallelism) { hash in
        let file = checking.appending(hash)
        let result: (etag: String, sha256: String, size: Int64, received: Int64)?
        do { result = try await objects.downloadBlob(hash, to: file) { _ in } } catch let error as SyncError
          where error.code == .corrupt
        {
          result = nil
        }
        _ = try? await BlockingIO.run { try LocalFiles.remove(file) }
        if result?.sha256 != hash { bad.withLockedValue { _ = $0.insert(hash) } }
        let (done, bytes) = counter.add(objects: 1, bytes: sizes[hash] ?? 0)
        progress?(
          SyncProgress(
            phase: .downloading, objectsDone: done, objectsTotal: hashes.count, bytesDone: bytes, bytesTotal: total))
      }
    } catch {
      _ = try? await BlockingIO.run { try LocalFiles.remove(checking) }
      throw error
    }
    _ = try? await BlockingIO.run { try LocalFiles.remove(checking) }
    return bad.withLockedValue { $0 }
  }

  /// Uploads again to `objects` the objects `damaged` (hash, whether a tree) from this device's copies: the
  /// package's files, the version store's objects, the tree cache.
  /// - Returns: The keys uploaded.
  private func reupload(
    _ damaged: [(String, Bool)], to objects: RemoteObjects, scan: PackageScan,
    localTree: @escaping @Sendable (String) -> TreeObject?
  ) async throws -> Set<String> {
    let packagePath = folder.packagePath
    let done = NIOLockedValueBox(Set<String>())
    try await forEachConcurrently(damaged) { [self] (hash, isTree) in
      if isTree {
        guard let tree = try await BlockingIO.run({ localTree(hash) }) else { return }
        try await objects.put(objects.treeKey(hash), tree.encoded(), kind: .tree, contentHash: hash)
        done.withLockedValue { _ = $0.insert(objects.treeKey(hash)) }
        return
      }
      let file: FilePath? = try await BlockingIO.run {
        if let blob = scan.blobs[hash] { return packagePath.appending(blob.path) }
        let stored = try? VersionStore.objectFile(ofPackageAt: packagePath, hash: hash)
        return stored.flatMap { (try? LocalFiles.exists($0)) == true ? $0 : nil }
      }
      guard let file else { return }
      do { _ = try await uploadBlob(hash, from: file, to: objects) } catch let error as SyncError
        where error.code == .corrupt
      {
        return  // the file changed since it was scanned: not a copy of the blob any more
      }
      done.withLockedValue { _ = $0.insert(objects.blobKey(hash)) }
    }
    return done.withLockedValue { $0 }
  }
}
