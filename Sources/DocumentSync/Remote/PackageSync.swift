import DocumentPackage
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
// push:  lock the package (no local save runs meanwhile) → read it, hashing every file → GET head; if the head
//        is neither absent nor the tree this package last synced, the remote has changes: refuse (pull first) →
//        list blobs/ and trees/, upload what is missing (blobs first, then trees, bounded parallelism) → PUT head
//        conditionally (If-None-Match: * for the first push, else If-Match: the ETag read) → record the state.
//        Killed at any step: the head still names a complete tree (objects go up before the head moves), and
//        the next push lists what arrived and sends only the rest. A 412 on the head: another device pushed
//        between our GET and PUT — nothing was overwritten; the error says to pull.
// pull:  GET head → fetch the trees it names that are missing → lock and read the package → three-way on
//        paths: base = the tree last synced, ours = the package, theirs = the head. Only theirs changed: a
//        fast-forward; both changed different paths: merged; both changed one path differently: the package's
//        state is first kept as an unresolved conflict version, then the path takes the remote's side. Blobs
//        needed are downloaded into the sync folder's objects/ under temporary names, their SHA-256 checked, and
//        renamed into place (so a killed pull resumes without downloading them again); then one atomic save.
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

  /// The trees reachable from `root` that `known` lacks, fetched and checked against their keys.
  func fetchTrees(from root: String, known: [String: SyncTree]) async throws -> [String: SyncTree] {
    var trees = known
    var wanted = trees[root] == nil ? [root] : []
    if let tree = trees[root] { wanted = Self.subtrees(of: tree).filter { trees[$0] == nil } }
    while !wanted.isEmpty {
      try Task.checkCancellation()
      let fetched = try await withThrowingTaskGroup(of: (String, SyncTree).self) { group in
        for hash in Set(wanted) {
          group.addTask { [self] in
            let key = treeKey(hash)
            let (data, _) = try await client.get(key)
            return (hash, try SyncTree(decoding: data, key: key, expectedHash: hash))
          }
        }
        return try await group.reduce(into: [(String, SyncTree)]()) { $0.append($1) }
      }
      wanted = []
      for (hash, tree) in fetched { trees[hash] = tree }
      for (_, tree) in fetched { wanted += Self.subtrees(of: tree).filter { trees[$0] == nil } }
    }
    // Subtrees of known trees that are themselves missing (a cache from an older sync) are fetched too.
    return trees
  }

  static func subtrees(of tree: SyncTree) -> [String] {
    tree.entries.values.filter { $0.kind == .directory }.map(\.reference)
  }
}
