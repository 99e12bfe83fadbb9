import DocumentPackage
import NIOSSL
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A named remote of a package: a bucket and prefix on an S3-compatible server. Holds no credentials.
public struct Remote: Sendable, Hashable, Codable {
  /// The remote's name (`origin`).
  public var name: String
  /// `s3://BUCKET/PREFIX`.
  public var url: String
  /// The server, `http[s]://HOST[:PORT]`.
  public var endpoint: String
  /// The region requests are signed for (nil: the environment's, else `us-east-1`).
  public var region: String?
  /// How the server wants `If-Match` ETags, found when the remote was added (nil: try both).
  package var etagForm: ETagForm?
  /// A PEM file of certificate authorities trusted for this remote besides the system's (a private CA's
  /// certificate; nil: `AWS_CA_BUNDLE`, else the system's only). Kept as an absolute path.
  public var caBundle: String?
  /// How many states of the remote's history ``PackageSync/prune(keepingStates:)`` keeps (nil:
  /// ``PackageSync/defaultKeptStates``, 10).
  public var keepStates: Int?
  /// Whether a push prunes the remote by itself when its history holds more than twice ``keepStates`` states
  /// (keeping ``keepStates``, as ``PackageSync/prune(keepingStates:)`` does), so that the bucket stays bounded
  /// without `docpkg remote prune`. true: on; nil or false: off (the history and what it reaches grow until a
  /// prune). Off unless set: a pull by a device whose last synced state was pruned needs, to merge a text file
  /// both sides changed, that state's bytes of the file, and fails without them (as after `remote prune`).
  public var autoPrune: Bool?
  /// Whether the remote is end-to-end encrypted: every object sealed on the device and named by a keyed hash,
  /// with a key from a passphrase (`DOCPKG_SYNC_PASSPHRASE`) that never leaves the devices (see
  /// <doc:RemoteLayout>). Set when the remote is added; nil or false: plain.
  public var encrypted: Bool?

  /// A remote: a bucket and prefix on a server.
  /// - Parameters:
  ///   - name: The remote's name in the package (`origin`).
  ///   - url: `s3://BUCKET/PREFIX`.
  ///   - endpoint: The server, `http[s]://HOST[:PORT]`.
  ///   - region: The region requests are signed for (nil: the environment's, else `us-east-1`).
  ///   - caBundle: A PEM file of certificate authorities trusted besides the system's (nil: `AWS_CA_BUNDLE`).
  ///   - encrypted: Whether the remote is end-to-end encrypted.
  public init(
    name: String, url: String, endpoint: String, region: String? = nil, caBundle: String? = nil,
    encrypted: Bool = false
  ) {
    self.init(name: name, url: url, endpoint: endpoint, region: region, etagForm: nil, caBundle: caBundle)
    self.encrypted = encrypted ? true : nil
  }

  /// A remote whose server's ETag form is known.
  package init(
    name: String, url: String, endpoint: String, region: String? = nil, etagForm: ETagForm?, caBundle: String? = nil
  ) {
    self.name = name
    self.url = url
    self.endpoint = endpoint
    self.region = region
    self.etagForm = etagForm
    self.caBundle = caBundle
  }

  /// The bucket and prefix.
  package func location() throws -> S3Location { try S3Location(url: url) }

  /// A client of the remote's bucket signed with `credentials`, trusting ``caBundle`` (else `AWS_CA_BUNDLE` of
  /// `environment`) besides the system's authorities, retrying as `DOCPKG_SYNC_RETRIES` of `environment` says
  /// (``RetryPolicy``), with `timeouts` (nil: those `environment` sets, ``SyncTimeouts/init(environment:)``).
  /// - Throws: ``SyncError`` with code `invalidArgument` for a malformed URL or endpoint, or a CA bundle that
  ///   cannot be read or holds no PEM certificate.
  package func client(
    credentials: S3Credentials, environment: [String: String], timeouts: SyncTimeouts? = nil
  ) throws -> S3Client {
    let bundle = caBundle ?? environment["AWS_CA_BUNDLE"].flatMap { $0.isEmpty ? nil : $0 }
    if let bundle { try Self.checkCABundle(bundle) }
    return S3Client(
      endpoint: try S3Endpoint(url: endpoint), bucket: try location().bucket, credentials: credentials,
      region: region ?? S3Credentials.region(environment), etagForm: etagForm ?? .automatic,
      timeouts: timeouts ?? SyncTimeouts(environment: environment), caBundle: bundle,
      retryPolicy: RetryPolicy(environment: environment))
  }

  /// Throws unless `file` holds at least one PEM certificate.
  static func checkCABundle(_ file: String) throws {
    let certificates: [NIOSSLCertificate]
    do { certificates = try NIOSSLCertificate.fromPEMFile(file) } catch {
      throw SyncError(
        .invalidArgument, "cannot read the CA bundle", key: file,
        serverMessage: "no such file, not readable, or not PEM certificates")
    }
    if certificates.isEmpty {
      throw SyncError(.invalidArgument, "no PEM certificate in the CA bundle", key: file)
    }
  }
}

/// The sync folder of a package: `.NAME.docpkg-sync/` beside it (like its version store, never inside it, so a
/// copy or archive of the package carries no remotes and no sync state):
///
/// | entry            | what it is                                                                  |
/// |------------------|-----------------------------------------------------------------------------|
/// | `remotes.json`   | the remotes: name, URL, endpoint, region, ETag form, CA bundle path (no credentials) |
/// | `state/NAME`     | per remote: the root tree last pushed or pulled, the head's ETag and generation then, and the layout's format |
/// | `objects/HASH`   | blobs downloaded and verified, kept until the pull that needed them saved   |
/// | `tmp/`           | downloads in progress                                                      |
/// | `trees/ab/cd…`   | tree objects known to be on a remote (pushed or fetched), by hash           |
/// | `pushing/NAME`   | objects a push to remote NAME sent, until its head moved (an interrupted push resumes) |
/// | `uploads/NAME/HASH` | a multipart upload of blob HASH to remote NAME in progress: its upload ID and the parts that arrived |
/// | `sealing/NAME/HASH` | an encrypted remote NAME's blob sealed for its upload, until it went up  |
/// | `fetching/HASH`  | files of a version kept on a remote, downloaded until the version store took them |
/// | `device`         | this device's random id, naming its pins on the remotes (RemotePins.swift)  |
///
/// What is kept per remote (`state/`, `pushing/`, `uploads/`, `sealing/`) is removed with the remote. A multipart
/// upload's record outlives its upload only when a push was interrupted: the next push resumes it, and a push
/// that moved the head (or found it up to date) aborts any upload still recorded, which no later push needs.
///
/// The stat cache a scan uses (which files are already hashed, by device, inode, size and time) is the version
/// store's (`.NAME.docpkg-versions/hashes`): one cache for versions and sync.
package struct SyncFolder: Sendable {
  /// The package.
  package let packagePath: FilePath
  /// `.NAME.docpkg-sync` beside it.
  package let path: FilePath

  /// The sync folder of the package at `packagePath` (not created).
  package init(packagePath: FilePath) {
    let normal = packagePath.lexicallyNormalized()
    self.packagePath = normal
    let name = normal.lastComponent?.string ?? "package"
    path = normal.removingLastComponent().appending(".\(name).docpkg-sync")
  }

  var remotesFile: FilePath { path.appending("remotes.json") }
  func stateFile(_ remote: String) -> FilePath { path.appending("state").appending(remote) }
  var objects: FilePath { path.appending("objects") }
  var treeStore: FilePath { path.appending("trees") }
  func pushJournal(_ remote: String) -> FilePath { path.appending("pushing").appending(remote) }
  /// The records of the multipart uploads to `remote` in progress, one file per blob (`MultipartRecord`).
  func uploads(_ remote: String) -> FilePath { path.appending("uploads").appending(remote) }
  var temporary: FilePath { path.appending("tmp") }
  /// An encrypted remote's blobs sealed for their upload (each removed after it).
  func sealing(_ remote: String) -> FilePath { path.appending("sealing").appending(remote) }

  /// The remotes, by name.
  /// - Throws: `PackageError` with code `corrupt` if `remotes.json` is not a list of remotes, `io` if it cannot
  ///   be read.
  package func remotes() throws -> [Remote] {
    guard let data = try LocalFiles.read(remotesFile) else { return [] }
    do { return try JSONDecoder().decode([Remote].self, from: data) } catch {
      throw PackageError(.corrupt, "cannot read the remotes in", path: remotesFile.string, context: "(\(error))")
    }
  }

  /// The remote `name`.
  /// - Throws: ``SyncError`` with code `remote` if there is none.
  package func remote(_ name: String) throws -> Remote {
    guard let remote = try remotes().first(where: { $0.name == name }) else {
      throw SyncError(.remote, "no remote '\(name)' for package", key: packagePath.string)
    }
    return remote
  }

  /// Adds `remote`.
  /// - Throws: ``SyncError`` with code `remote` if one of that name exists, `invalidArgument` for a bad name or
  ///   URL; `PackageError` if the sync folder cannot be written.
  package func add(_ remote: Remote) throws {
    guard !remote.name.isEmpty, !remote.name.contains("/"), !remote.name.hasPrefix(".") else {
      throw SyncError(
        .invalidArgument, "a remote name must be non-empty, without '/' or a leading '.':", key: remote.name)
    }
    _ = try remote.location()
    _ = try S3Endpoint(url: remote.endpoint)
    if let bundle = remote.caBundle { try Remote.checkCABundle(bundle) }
    var all = try remotes()
    if all.contains(where: { $0.name == remote.name }) {
      throw SyncError(.remote, "remote '\(remote.name)' exists already for package", key: packagePath.string)
    }
    all.append(remote)
    try write(all)
  }

  /// Removes the remote `name` and what the sync folder keeps for it: its state, an interrupted push's journal,
  /// its multipart upload records and sealed blobs (a remote added later under the same name starts afresh).
  /// Nothing on the server: an upload the records name stays there until the bucket's lifecycle rule removes it.
  /// - Throws: ``SyncError`` with code `remote` if there is none; `PackageError` if the sync folder cannot be
  ///   written.
  package func remove(_ name: String) throws {
    var all = try remotes()
    guard all.contains(where: { $0.name == name }) else {
      throw SyncError(.remote, "no remote '\(name)' for package", key: packagePath.string)
    }
    all.removeAll { $0.name == name }
    try write(all)
    for kept in [stateFile(name), pushJournal(name), uploads(name), sealing(name)] { try? LocalFiles.remove(kept) }
  }

  /// Sets how many states a prune of the remote `name` keeps.
  /// - Throws: ``SyncError`` with code `remote` if there is no such remote; `PackageError` if the sync folder
  ///   cannot be written.
  package func setKeepStates(_ count: Int, of name: String) throws {
    try update(name) { $0.keepStates = count }
  }

  /// Changes the remote `name` with `change` and writes the remotes.
  /// - Throws: ``SyncError`` with code `remote` if there is no such remote; `PackageError` if the sync folder
  ///   cannot be written.
  package func update(_ name: String, _ change: (inout Remote) -> Void) throws {
    var all = try remotes()
    guard let index = all.firstIndex(where: { $0.name == name }) else {
      throw SyncError(.remote, "no remote '\(name)' for package", key: packagePath.string)
    }
    change(&all[index])
    try write(all)
  }

  private func write(_ remotes: [Remote]) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try LocalFiles.writeAtomically(try encoder.encode(remotes), to: remotesFile)
  }

  /// The state of the last push or pull with `remote`: the root tree then, the head's ETag then, and the
  /// unresolved conflict versions the head listed then (the base of the next conflict-list merge); nil if there
  /// is none, or it was written for another remote layout format (its tree is not one this release reads).
  func state(_ remote: String) -> SyncedState? {
    guard let data = (try? LocalFiles.read(stateFile(remote))) ?? nil else { return nil }
    let parts = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard parts.count >= 3, parts[2] == "format \(RemoteHead.format)" else { return nil }
    let conflicts = parts.dropFirst(3).first { $0.hasPrefix("conflicts") }.map {
      Set($0.split(separator: " ").dropFirst().map(String.init))
    }
    let generations = parts.dropFirst(3).first { $0.hasPrefix("generation ") }.map {
      $0.split(separator: " ").dropFirst().compactMap { Int($0) }
    }
    return SyncedState(
      tree: String(parts[0]), etag: String(parts[1]), conflicts: conflicts ?? [],
      generation: generations?.first ?? 0, highestGeneration: generations?.last ?? 0)
  }

  /// Records the state of a push or pull with `remote` (atomically and durably): the head's tree, ETag, conflict
  /// versions and `generation` (and the highest generation ever taken, kept across an accepted rollback).
  /// - Throws: `PackageError` if it cannot be written.
  func setState(_ remote: String, tree: String, etag: String, conflicts: Set<String>, generation: Int) throws {
    let highest = max(generation, state(remote)?.highestGeneration ?? 0)
    try LocalFiles.writeAtomically(
      Data(
        "\(tree)\n\(etag)\nformat \(RemoteHead.format)\nconflicts\(conflicts.sorted().map { " " + $0 }.joined())\ngeneration \(generation) \(highest)\n"
          .utf8), to: stateFile(remote))
  }
}

/// What a package last synced with a remote (`state/NAME`).
struct SyncedState: Sendable, Hashable {
  /// The root tree of the head pushed or pulled.
  var tree: String
  /// The head's ETag then.
  var etag: String
  /// The root trees of the unresolved conflict versions the head listed then.
  var conflicts: Set<String>
  /// The head's generation then (``RemoteHead/generation``; 0 when not recorded): a head older than this is refused.
  var generation: Int = 0
  /// The highest generation this package ever took from or gave the remote (above ``generation`` after an
  /// accepted rollback): a push numbers its head above it, so that devices that saw it take the push.
  var highestGeneration: Int = 0
}
