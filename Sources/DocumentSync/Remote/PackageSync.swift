import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The sync protocol, in one place (a newcomer reads this first).
//
// Remote layout under s3://BUCKET/PREFIX (see the DocC article "RemoteLayout"):
//   blobs/SHA256   a file's bytes, keyed by their SHA-256: stored once, whatever shares it
//   trees/SHA256   a directory (SyncTree's text), keyed by its SHA-256
//   head           the current root tree (RemoteHead's text); the only object ever overwritten
//
// scan:  list every directory (one fstatat per entry) and hash only the files the sync folder's `index` does
//        not know at their device, inode, size and time (Snapshot, SyncIndex): O(entries) stats, O(changed) reads.
// push:  lock the package (no local save runs meanwhile) → scan → GET head; if the head is neither absent nor the
//        tree this package last synced, the remote has changes: refuse (pull first) → walk the package's trees
//        against the synced head's (kept in the sync folder's `trees/`, LocalTrees) path by path, stopping at
//        every equal subtree: what differs is what may be missing (PushPlan), minus what an interrupted push's
//        journal (`pushing/NAME`) says arrived; many unknowns (a first push): one listing of the remote decides;
//        a few: small blobs are sent, big ones after a HEAD → upload blobs (a big one as a parallel multipart
//        upload whose ID and finished parts are kept in `uploads/HASH`, so a killed push resumes it), then trees,
//        bounded parallelism, each noted in the journal → PUT head conditionally (If-None-Match: * for the
//        first push, else If-Match: the ETag read) → record the state, drop the journal.
//        Killed at any step: the head still names a complete tree (objects go up before the head moves), and
//        the next push skips what the journal and the multipart records name. A 412 on the head: another device
//        pushed between our GET and PUT — nothing was overwritten; the error says to pull.
// pull:  GET head → fetch the trees it names that neither the scan nor `trees/` has → lock and scan the package
//        → three-way on paths: base = the tree last synced, ours = the package, theirs = the head. Only theirs
//        changed: a fast-forward; both changed different paths: merged; both changed one text file in different
//        lines: merged line-wise (diff3, as a local merging save); otherwise the package's state is first kept
//        as an unresolved conflict version, then the path takes the remote's side. Blobs needed are downloaded
//        into the sync folder's objects/ under temporary names, their SHA-256 checked, and renamed into place
//        (so a killed pull resumes without downloading them again); then one atomic save.
// clone: as a pull into a new package, which gets the remote as `origin`.

/// Push, pull and clone a package through an S3-compatible object store.
///
/// Create one per package and remote. Every operation is `async`, stops at the next object when its task is
/// cancelled (leaving the package and the remote consistent), and reports ``SyncProgress``.
public final class PackageSync: Sendable {
  /// The package's sync folder.
  public let folder: SyncFolder
  /// The remote.
  public let remote: Remote
  /// The client of the remote's bucket.
  public let client: S3Client
  let location: S3Location
  /// How many transfers run at once.
  public let parallelism: Int

  /// A sync of the package at `packagePath` with its remote `remoteName`.
  /// - Throws: ``SyncError`` with code `remote` if the package has no such remote.
  public convenience init(
    packageAt packagePath: FilePath, remote remoteName: String, credentials: S3Credentials,
    environment: [String: String] = ProcessInfo.processInfo.environment, parallelism: Int = 8
  ) throws {
    let folder = SyncFolder(packagePath: packagePath)
    let remote = try folder.remote(remoteName)
    try self.init(
      folder: folder, remote: remote, client: remote.client(credentials: credentials, environment: environment),
      parallelism: parallelism)
  }

  init(folder: SyncFolder, remote: Remote, client: S3Client, parallelism: Int = 8) throws {
    self.folder = folder
    self.remote = remote
    self.client = client
    self.location = try remote.location()
    self.parallelism = max(1, parallelism)
  }

  var headKey: String { location.key("head") }
  func blobKey(_ hash: String) -> String { location.key("blobs/\(hash)") }
  func treeKey(_ hash: String) -> String { location.key("trees/\(hash)") }

  /// The remote's head and its ETag, or nil before the first push.
  public func head() async throws -> (head: RemoteHead, etag: String)? {
    do {
      let (data, etag) = try await client.get(headKey, limit: 1 << 16)
      return (try RemoteHead(decoding: data, key: headKey), etag)
    } catch let error as SyncError where error.code == .noSuchKey {
      return nil
    }
  }

  /// Runs `work` on every element, at most ``parallelism`` at once.
  func forEachConcurrently<T: Sendable>(_ items: [T], _ work: @escaping @Sendable (T) async throws -> Void)
    async throws
  {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var iterator = items.makeIterator()
      for _ in 0..<parallelism {
        guard let item = iterator.next() else { break }
        group.addTask { try await work(item) }
      }
      while try await group.next() != nil {
        try Task.checkCancellation()
        if let item = iterator.next() { group.addTask { try await work(item) } }
      }
    }
  }

  /// Every tree reachable from `root`: taken from `known` (the package's own scan), else from the sync folder's
  /// `LocalTrees`, else fetched (at most ``parallelism`` at once), checked against its key and kept in
  /// `LocalTrees` for later pulls and pushes.
  func fetchTrees(from root: String, known: [String: SyncTree]) async throws -> [String: SyncTree] {
    var trees = known
    let local = LocalTrees(path: folder.treeStore)
    var wanted = [root]
    while !wanted.isEmpty {
      try Task.checkCancellation()
      let candidates = Array(Set(wanted.filter { trees[$0] == nil }))
      let found = try await BlockingIO.run { candidates.compactMap { hash in local.tree(hash).map { (hash, $0) } } }
      for (hash, tree) in found { trees[hash] = tree }
      let missing = candidates.filter { trees[$0] == nil }
      let fetched = NIOLockedValueBox([(String, SyncTree)]())
      try await forEachConcurrently(missing) { [self] hash in
        let key = treeKey(hash)
        let (data, _) = try await client.get(key)
        let tree = try SyncTree(decoding: data, key: key, expectedHash: hash)
        fetched.withLockedValue { $0.append((hash, tree)) }
      }
      for (hash, tree) in fetched.withLockedValue({ $0 }) { trees[hash] = tree }
      var next: [String] = []
      for hash in wanted { if let tree = trees[hash] { next += Self.subtrees(of: tree).filter { trees[$0] == nil } } }
      wanted = next
    }
    let all = trees
    try await BlockingIO.run { local.add([root], from: all) }
    return trees
  }

  static func subtrees(of tree: SyncTree) -> [String] {
    tree.entries.values.filter { $0.kind == .directory }.map(\.reference)
  }
}
