import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageSync {
  /// Makes a new package at `destination` holding the remote's head state, with the remote added to it as
  /// `remoteName` (and synced: a push from the copy continues from there).
  /// - Parameters:
  ///   - url: `s3://BUCKET/PREFIX`.
  ///   - endpoint: The server, `http[s]://HOST[:PORT]`.
  ///   - destination: Where the new package goes; nothing may be there yet.
  ///   - credentials: The keys requests are signed with.
  ///   - remoteName: The name the remote gets in the new package.
  ///   - region: The region requests are signed for (else `AWS_REGION` from `environment`, else the profile's
  ///     in `~/.aws/config`, else `us-east-1`).
  ///   - caBundle: A PEM file of authorities trusted besides the system's, kept with the remote (else
  ///     `AWS_CA_BUNDLE` from `environment`).
  ///   - requiringEncryption: Refuse a remote that is not encrypted (a server could replace an encrypted remote
  ///     with a plain one of its choosing; a device that knows it should be encrypted says so).
  ///   - environment: Where `AWS_REGION` and `AWS_CA_BUNDLE` are looked up, and an encrypted remote's passphrase
  ///     (`DOCPKG_SYNC_PASSPHRASE`, else the file `DOCPKG_SYNC_PASSPHRASE_FILE` names). A remote that holds key
  ///     parameters is encrypted, and so is the clone's remote.
  ///   - timeouts: How long requests and the clone wait on the server (nil: the defaults, changed by the
  ///     variables of `environment`, ``SyncTimeouts/init(environment:)``); kept by the sync returned.
  ///   - progress: Called as objects arrive.
  /// - Returns: The sync of the new package with its remote.
  /// - Throws: ``SyncError`` with code `remote` if the remote has nothing pushed yet, `passphrase` if it is
  ///   encrypted and the passphrase is missing or wrong (or not encrypted with `requiringEncryption`), `corrupt` naming an object changed on the server;
  ///   `PackageError` with code `nameTaken` if something is at `destination`. Nothing is left at `destination`.
  @discardableResult
  public static func clone(
    from url: String, endpoint: String, to destination: FilePath, credentials: S3Credentials,
    remoteName: String = "origin", region: String? = nil, caBundle: String? = nil, requiringEncryption: Bool = false,
    environment: [String: String] = ProcessInfo.processInfo.environment, timeouts: SyncTimeouts? = nil,
    progress: SyncProgress.Handler? = nil
  ) async throws -> PackageSync {
    let folder = SyncFolder(packagePath: destination)
    if try LocalFiles.exists(folder.packagePath) {
      throw PackageError(.nameTaken, "cannot clone: something is already at", path: folder.packagePath.string)
    }
    var probeRemote = Remote(name: remoteName, url: url, endpoint: endpoint, region: region, caBundle: caBundle)
    let client = try probeRemote.client(credentials: credentials, environment: environment, timeouts: timeouts)
    // A remote with a key-parameters object is encrypted: the clone is too, and needs the passphrase.
    let encrypted =
      try await client.head(RemoteKeyParameters.key(in: try probeRemote.location())) != nil
    probeRemote.encrypted = encrypted ? true : nil
    if requiringEncryption, !encrypted {
      // A server that dropped the key object (and put plain objects in place) would feed the clone what it wants.
      throw SyncError(
        .remote, "the remote is not encrypted (it has no key-parameters object), but an encrypted one was asked for:",
        key: RemoteKeyParameters.key(in: try probeRemote.location()))
    }
    let passphrase: String? =
      if encrypted { try await BlockingIO.run { Self.passphrase(in: environment) } } else { nil }
    let sync = try PackageSync(
      folder: folder, remote: probeRemote, client: client, passphrase: passphrase, cloning: true)
    do {
      return try await sync.withinDeadline("clone") {
        try await sync.cloneHead(credentials: credentials, environment: environment, progress: progress)
      }
    } catch {
      // Nothing half made stays: the package appears whole or not at all, and the sync folder goes unless it
      // holds downloaded blobs the next clone resumes from (a clone cut short keeps them, a refused one has none).
      try? await BlockingIO.run { folder.removeIfOnlyACloneLeftover() }
      throw error
    }
  }

  /// The work of ``clone(from:endpoint:to:credentials:remoteName:region:caBundle:requiringEncryption:environment:timeouts:progress:)`` on
  /// this sync of the package to be made.
  private func cloneHead(
    credentials: S3Credentials, environment: [String: String], progress: SyncProgress.Handler?
  ) async throws -> PackageSync {
    guard let (head, etag) = try await head() else {
      throw SyncError(.remote, "nothing to clone: nothing was pushed to the remote, no head at", key: headKey)
    }
    progress?(SyncProgress(phase: .downloading, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let trees = try await fetchHeadTrees(head)
    let flat = try FlatTree(root: head.tree, named: "the head", trees: trees)
    let folder = self.folder
    // Names the destination's file system cannot hold refuse the clone before anything is downloaded.
    try await BlockingIO.run { try flat.checkNamesFit(in: folder, "cannot clone") }
    let headBlobs = Set(flat.values.filter { $0.kind == .file }.map(\.reference))
    try await fetchBlobs(headBlobs.sorted(), sizes: flat, progress: progress)
    // The remote's unresolved conflict versions, kept here too: a clone lists them as every other device does.
    let conflicts = ConflictMerge(theirs: head.conflicts, local: [], base: [])
    let allTrees = try await conflicts.fetch(with: self, trees: trees, localBlobs: headBlobs)
    progress?(SyncProgress(phase: .saving, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
    try await BlockingIO.run {
      let root = try PackageNode(directoryWithChildren: [:])
      // The downloaded blobs are handed over (linked into the new package, not copied): they were checked
      // against their hashes, nothing else writes them, and they are removed right after.
      try TreeApplier(objects: folder.objects, localBlobs: [:], packagePath: folder.packagePath, handOver: true)
        .apply(flat, over: [:], to: root)
      try PackageFile.create(at: folder.packagePath, root: root).close()
      if !conflicts.isEmpty {
        // A conflict version's blobs: downloaded, or the new package's file with the same bytes (handed over).
        var packageBlobs: [String: (path: String, size: Int64)] = [:]
        for (path, entry) in flat where entry.kind == .file { packageBlobs[entry.reference] = (path, entry.size) }
        let lock = try PackageLock(forPackageAt: folder.packagePath)
        defer { lock.unlock() }
        _ = try conflicts.apply(to: folder.packagePath, folder: folder, trees: allTrees, localBlobs: packageBlobs)
      }
      folder.clearObjects()
      // The stat cache, from what was just written (one listing, no file read): the first push does not hash again.
      _ = try VersionStore.scan(
        packageAt: folder.packagePath, lockHeld: false,
        written: flat.compactMapValues { $0.kind == .file ? ($0.reference, $0.size) : nil })
    }
    // Whether the server wants bare ETags was learned while nothing depended on it; keep it for later pushes.
    var added = remote
    added.etagForm = try await client.probeETagForm(key: Self.probeKey(url: remote.url))
    try await BlockingIO.run { [added] in
      try folder.add(added)
      try folder.setState(
        added.name, tree: head.tree, etag: etag, conflicts: head.conflictTrees, generation: head.generation)
    }
    return try PackageSync(
      folder: folder, remote: added,
      client: added.client(credentials: credentials, environment: environment, timeouts: client.timeouts),
      passphrase: passphrase, keys: keys)
  }

  /// A key for ``S3Client/probeETagForm(key:)`` under the remote's prefix, unique to this run.
  static func probeKey(url: String) throws -> String {
    try S3Location(url: url).key("probes/\(UUID().uuidString.lowercased())")
  }

  /// Adds the remote `remote` to the package at `packagePath`, after finding how its server wants `If-Match`
  /// ETags (one probe object, written and deleted under the prefix) unless `remote.etagForm` is given.
  ///
  /// An encrypted remote (``Remote/encrypted``) needs its passphrase in `environment` (`DOCPKG_SYNC_PASSPHRASE`,
  /// else the file `DOCPKG_SYNC_PASSPHRASE_FILE` names): on a prefix with key parameters it must open them; on an
  /// empty prefix a new master key is made and its parameters written (`key`).
  /// - Throws: ``SyncError`` with code `remote` if a remote of that name exists or the prefix holds a remote of
  ///   the other kind (encrypted or not), `passphrase` if the passphrase is missing or wrong; the client's errors.
  public static func addRemote(
    _ remote: Remote, toPackageAt packagePath: FilePath, credentials: S3Credentials,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) async throws {
    let folder = SyncFolder(packagePath: packagePath)
    if try await BlockingIO.run({ try folder.remotes() }).contains(where: { $0.name == remote.name }) {
      throw SyncError(.remote, "remote '\(remote.name)' exists already for package", key: packagePath.string)
    }
    var remote = remote
    let client = try remote.client(credentials: credentials, environment: environment)
    if remote.etagForm == nil {
      remote.etagForm = try await client.probeETagForm(key: probeKey(url: remote.url))
    }
    let passphrase: String? =
      if remote.encrypted == true { try await BlockingIO.run { Self.passphrase(in: environment) } } else { nil }
    try await checkEncryption(of: remote, client: client, passphrase: passphrase)
    try await BlockingIO.run { [remote] in try folder.add(remote) }
  }

  /// Checks that `remote` is what the bucket holds, before it is added: an encrypted remote's passphrase opens its
  /// key (whose parameters are written first, with a new master key, when the prefix holds nothing yet); a plain
  /// remote is not an encrypted one, nor the other way round.
  /// - Throws: ``SyncError`` with code `passphrase` if the passphrase is missing or wrong, `remote` if the prefix
  ///   holds a history of the other kind; the client's errors. Nothing is changed on the server then.
  private static func checkEncryption(of remote: Remote, client: S3Client, passphrase: String?) async throws {
    let location = try remote.location()
    let key = RemoteKeyParameters.key(in: location)
    let hasKey = try await client.head(key) != nil
    guard remote.encrypted == true else {
      if hasKey {
        throw SyncError(
          .remote, "the remote is encrypted (it has key parameters): add it with --encrypt and its passphrase;",
          key: key)
      }
      return
    }
    guard let passphrase else { throw missingPassphrase(key: key) }
    if hasKey {
      _ = try await openKey(client: client, key: key, passphrase: passphrase)
      return
    }
    if try await client.head(location.key("head")) != nil {
      throw SyncError(
        .remote, "the remote holds an unencrypted history: an encrypted remote needs a new prefix; head",
        key: location.key("head"))
    }
    let (parameters, _) = try await BlockingIO.run { try RemoteKeyParameters.make(passphrase: passphrase) }
    do { _ = try await client.put(key, data: parameters.encoded(), condition: .absent) } catch let error
      as SyncError where error.code == .preconditionFailed
    {
      // Another device made the remote's key meanwhile: this passphrase must open it.
      _ = try await openKey(client: client, key: key, passphrase: passphrase)
    }
  }
}

extension PackageSync {
  /// The remotes of the package at `packagePath`, in the order they were added.
  /// - Throws: `PackageError` if its sync folder's `remotes.json` cannot be read or is damaged.
  public static func remotes(ofPackageAt packagePath: FilePath) async throws -> [Remote] {
    try await BlockingIO.run { try SyncFolder(packagePath: packagePath).remotes() }
  }

  /// Removes the remote `name` and its sync state from the package at `packagePath` (nothing on the server).
  /// - Throws: ``SyncError`` with code `remote` if there is no such remote; `PackageError` if the sync folder
  ///   cannot be read or written.
  public static func removeRemote(named name: String, fromPackageAt packagePath: FilePath) async throws {
    try await BlockingIO.run { try SyncFolder(packagePath: packagePath).remove(name) }
  }
}

extension SyncFolder {
  /// Removes the sync folder when it is what a failed clone left: no package beside it, no remotes, and no
  /// downloaded blob (whole in `objects/` or partial in `tmp/`) that the next clone would resume from.
  func removeIfOnlyACloneLeftover() {
    guard (try? LocalFiles.exists(packagePath)) == false, (try? LocalFiles.exists(remotesFile)) == false else { return }
    func holdsBytes(_ directory: FilePath) -> Bool {
      guard let (_, entries) = try? Syscalls.listDirectory(directory) else { return false }
      return entries.contains { $0.status.kind == .file && $0.status.size > 0 }
    }
    if holdsBytes(objects) || holdsBytes(temporary) { return }
    try? LocalFiles.remove(path)
  }
}
