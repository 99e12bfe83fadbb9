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
//   trees/SHA256   a directory (TreeObject's text, the version store's trees: a version and a pushed state
//                  are the same objects), keyed by its SHA-256
//   head           the current root tree (RemoteHead's text, format 2); the only object ever overwritten
//
// scan:  list every directory (one fstatat per entry) and hash only the files the version store's stat cache
//        (`hashes`, HashCache) does not know at their device, inode, size and time (PackageScan, the one walker
//        and stat cache of versions and sync): O(entries) stats, O(changed) reads.
// times: a file's and a link's modification time are part of a state (a pull sets them, a touch alone is
//        pushed: a few tree objects, no blob); a directory's are not (see TreeEntry).
// push:  lock the package (no local save runs meanwhile) → scan → GET head; if the head is neither absent nor the
//        tree this package last synced, the remote has changes: refuse (pull first) → walk the package's trees
//        against the synced head's (kept in the sync folder's `trees/`, LocalTrees) path by path, stopping at
//        every equal subtree: what differs is what may be missing (PushPlan); many unknowns (a first push, or one
//        after an interrupted push): one listing of the remote decides; a few: small blobs are sent, big ones and
//        those an unfinished push's journal (`pushing/NAME`) lists after a HEAD (a prune may have deleted what no
//        state names: checked under this push's lock, never assumed) → upload blobs (a big one as a parallel multipart
//        upload whose ID and finished parts are kept in `uploads/NAME/HASH`, so a killed push resumes it), then trees,
//        bounded parallelism, each noted in the journal → PUT head conditionally (If-None-Match: * for the
//        first push, else If-Match: the ETag read) → record the state, drop the journal → write the history
//        entry `states/…` → when the history holds more than 2N states, prune it to N (PackageSync+Prune.swift).
//        Killed at any step: the head still names a complete tree (objects go up before the head moves), and
//        the next push skips what it finds on the remote and the parts the multipart records name. A 412 on the head: another device
//        pushed between our GET and PUT — nothing was overwritten; the error says to pull.
// pull:  GET head → fetch the trees it names that neither the scan nor `trees/` has → lock and scan the package
//        → three-way on paths: base = the tree last synced, ours = the package, theirs = the head. Only theirs
//        changed: a fast-forward; both changed different paths: merged; both changed one text file in different
//        lines: merged line-wise (diff3, as a local merging save); otherwise the package's state is first kept
//        as an unresolved conflict version, then the path takes the remote's side. Blobs needed are downloaded
//        into the sync folder's objects/ under temporary names, their SHA-256 checked, and renamed into place
//        (so a killed pull resumes without downloading them again); then one atomic save.
// clone: as a pull into a new package, which gets the remote as `origin`.
// encrypted remotes (`remote add --encrypt`): the same protocol over sealed objects. Before its first request a
//        sync GETs the key-parameters object `key` and opens the master key with the passphrase (scrypt;
//        RemoteKeyParameters); then every object's name below `blobs/`, `trees/` and `states/` is the HMAC of its
//        plain hash (RemoteCipher), and every body is sealed on the way up and opened (and authenticated) on the
//        way down (SealedFormat); a blob as a file, a segment at a time: sealed into `sealing/NAME/` before its upload,
//        downloaded sealed into `tmp/` (so a cut download resumes by byte offset) and opened into `objects/`.

/// Push, pull and clone a package through an S3-compatible object store.
///
/// Create one per package and remote. Every operation is `async`, stops at the next object when its task is
/// cancelled (leaving the package and the remote consistent), and reports ``SyncProgress``.
public final class PackageSync: Sendable {
  /// The package's sync folder.
  package let folder: SyncFolder
  /// The remote.
  public let remote: Remote
  /// The client of the remote's bucket.
  package let client: S3Client
  let location: S3Location
  /// How many transfers run at once.
  public let parallelism: Int
  /// An encrypted remote's passphrase (from the environment), nil for a plain remote or none given.
  let passphrase: String?
  /// A sync made by a clone, whose package does not exist yet (its errors' hints do not name it).
  let cloning: Bool
  /// An encrypted remote's keys once ``unlock()`` opened them.
  let keys: UnlockedKeys
  /// What the last push's automatic prune did (``lastAutoPrune``).
  let autoPruneOutcome = NIOLockedValueBox<Result<PruneResult, any Error>?>(nil)

  /// What the automatic prune of the last ``push(forcingNewHead:progress:)`` did (``Remote/autoPrune``): what it
  /// kept and removed, or why it failed or was skipped (another device's push or prune held the remote's lock);
  /// nil when that push ran none (not due, turned off, or the push did not move the head).
  public var lastAutoPrune: Result<PruneResult, any Error>? { autoPruneOutcome.withLockedValue { $0 } }

  /// A sync of the package at `packagePath` with its remote `remoteName`.
  ///
  /// An encrypted remote's passphrase is `DOCPKG_SYNC_PASSPHRASE` in `environment`, else the first line of the
  /// file `DOCPKG_SYNC_PASSPHRASE_FILE` names; it is checked by the first operation. How often a request that
  /// failed for a transient reason is sent again is `DOCPKG_SYNC_RETRIES` in `environment` (default 4).
  /// - Parameters:
  ///   - packagePath: The package.
  ///   - remoteName: One of its remotes (`docpkg remote add`).
  ///   - credentials: The keys to sign requests with.
  ///   - environment: Where the passphrase, the retry count and the timeouts are read.
  ///   - parallelism: How many transfers run at once.
  ///   - timeouts: How long requests and each operation wait on the server (nil: the defaults, changed by
  ///     the variables of `environment`, ``SyncTimeouts/init(environment:)``).
  /// - Throws: ``SyncError`` with code `remote` if the package has no such remote.
  public convenience init(
    packageAt packagePath: FilePath, remote remoteName: String, credentials: S3Credentials,
    environment: [String: String] = ProcessInfo.processInfo.environment, parallelism: Int = 8,
    timeouts: SyncTimeouts? = nil
  ) throws {
    let folder = SyncFolder(packagePath: packagePath)
    let remote = try folder.remote(remoteName)
    try self.init(
      folder: folder, remote: remote,
      client: remote.client(credentials: credentials, environment: environment, timeouts: timeouts),
      parallelism: parallelism, passphrase: remote.encrypted == true ? Self.passphrase(in: environment) : nil)
  }

  init(
    folder: SyncFolder, remote: Remote, client: S3Client, parallelism: Int = 8, passphrase: String? = nil,
    keys: UnlockedKeys = UnlockedKeys(), cloning: Bool = false
  ) throws {
    self.cloning = cloning
    self.folder = folder
    self.remote = remote
    self.client = client
    self.location = try remote.location()
    self.parallelism = max(1, parallelism)
    self.passphrase = passphrase
    self.keys = keys
  }

  /// The head's key: the same for a plain and an encrypted remote (object names are ``RemoteObjects``').
  var headKey: String { location.key("head") }
  /// The key-parameters object of an encrypted remote.
  var keyParametersKey: String { RemoteKeyParameters.key(in: location) }

  /// The keys of the encrypted remote whose key-parameters object is `key`, opened with `passphrase`.
  static func openKey(client: S3Client, key: String, passphrase: String?) async throws -> RemoteCipher {
    let data: Data
    do { data = try await client.get(key, limit: 1 << 14).data } catch let error as SyncError
      where error.code == .noSuchKey
    {
      throw SyncError(
        .corrupt, "the encrypted remote has no key-parameters object (deleted on the server?):", key: key)
    }
    let parameters = try RemoteKeyParameters(decoding: data, key: key)
    guard let passphrase else { throw missingPassphrase(key: key) }
    // scrypt is seconds of CPU and tens of MiB at most: off the cooperative pool.
    let master = try await BlockingIO.run { try parameters.masterKey(passphrase: passphrase, key: key) }
    return RemoteCipher(masterKey: master)
  }

  /// The error when an encrypted remote is used without a passphrase.
  static func missingPassphrase(key: String) -> SyncError {
    SyncError(
      .passphrase,
      "the remote is encrypted: give its passphrase in DOCPKG_SYNC_PASSPHRASE (or a file named by DOCPKG_SYNC_PASSPHRASE_FILE); key parameters",
      key: key)
  }

  /// The passphrase `environment` gives: `DOCPKG_SYNC_PASSPHRASE`, else the first line of the file
  /// `DOCPKG_SYNC_PASSPHRASE_FILE` names (nil if neither is set or the file cannot be read).
  package static func passphrase(in environment: [String: String]) -> String? {
    if let passphrase = environment["DOCPKG_SYNC_PASSPHRASE"], !passphrase.isEmpty { return passphrase }
    guard let file = environment["DOCPKG_SYNC_PASSPHRASE_FILE"], !file.isEmpty,
      let data = (try? LocalFiles.read(FilePath(file))) ?? nil
    else { return nil }
    let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first
    return line.map(String.init).flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The remote's head and its ETag, or nil before the first push.
  package func head() async throws -> (head: RemoteHead, etag: String)? {
    let objects = try await unlock()
    do {
      let (data, etag) = try await objects.get(headKey, kind: .head, limit: 1 << 16)
      return (try RemoteHead(decoding: data, key: headKey), etag)
    } catch let error as SyncError where error.code == .noSuchKey {
      return nil
    }
  }

  /// How many downloads run at once: twice ``parallelism``. A download streams to disk (one chunk in memory), and
  /// its time is mostly the server's answer: measured against Ceph RGW on loopback, `aws s3 sync` down of the
  /// typical corpus took 15.7 s at 16 requests in flight and 22 s at 8.
  var downloadParallelism: Int { 2 * parallelism }

  /// Runs `work` on every element, at most `width` (default ``parallelism``) at once.
  func forEachConcurrently<T: Sendable>(
    _ items: [T], width: Int? = nil, _ work: @escaping @Sendable (T) async throws -> Void
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var iterator = items.makeIterator()
      for _ in 0..<(width ?? parallelism) {
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
  /// `LocalTrees`, else fetched, checked against its key and kept in `LocalTrees` for later pulls and pushes.
  ///
  /// Pipelined: a tree's subtrees are asked for as soon as it arrives (at most ``downloadParallelism`` requests in
  /// flight), not level by level, so a deep or uneven tree does not wait for the slowest request of each level.
  func fetchTrees(from root: String, known: [String: TreeObject]) async throws -> [String: TreeObject] {
    var trees = known
    let local = LocalTrees(path: folder.treeStore)
    let objects = try await unlock()
    try await withThrowingTaskGroup(of: (String, TreeObject).self) { group in
      var pending: [String] = []
      // The StoredTreeWalk of each tree once, through the trees already at hand; the first unknown one on each path
      // is queued, and walked below once it arrives.
      var walk = StoredTreeWalk<Void>(.eachTree(), roots: [])
      func reach(_ hash: String) {
        walk.add(.init(name: "", hash: hash))
        while let step = walk.next() {
          guard case .enter(let at) = step else { continue }
          if let tree = trees[at.hash] { walk.descend(into: tree.subdirectories) } else { pending.append(at.hash) }
        }
      }
      func launch() {
        guard let hash = pending.popLast() else { return }
        group.addTask {
          if let tree = try await BlockingIO.run({ local.tree(hash) }) { return (hash, tree) }
          return (hash, try await objects.tree(hash))
        }
      }
      reach(root)
      var running = 0
      while running < downloadParallelism, !pending.isEmpty {
        launch()
        running += 1
      }
      while let (hash, tree) = try await group.next() {
        running -= 1
        try Task.checkCancellation()
        trees[hash] = tree
        for subtree in tree.subtrees { reach(subtree) }
        while running < downloadParallelism, !pending.isEmpty {
          launch()
          running += 1
        }
      }
    }
    let all = trees
    try await BlockingIO.run { local.add([root], from: all) }
    return trees
  }

  /// Parses a tree object fetched from `key`, checking that it hashes to `expectedHash`.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if it does not hash or parse.
  static func tree(decoding data: Data, key: String, expectedHash: String) throws -> TreeObject {
    guard ContentHash.hex(SHA256.hash(data: data)) == expectedHash else {
      throw SyncError(.corrupt, "tree object does not hash to its key", key: key)
    }
    guard let tree = TreeObject(decoding: data) else {
      throw SyncError(.corrupt, "malformed tree object", key: key)
    }
    return tree
  }
}
