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
  public var etagForm: ETagForm?
  /// A PEM file of certificate authorities trusted for this remote besides the system's (a private CA's
  /// certificate; nil: `AWS_CA_BUNDLE`, else the system's only). Kept as an absolute path.
  public var caBundle: String?

  /// A remote.
  public init(
    name: String, url: String, endpoint: String, region: String? = nil, etagForm: ETagForm? = nil,
    caBundle: String? = nil
  ) {
    self.name = name
    self.url = url
    self.endpoint = endpoint
    self.region = region
    self.etagForm = etagForm
    self.caBundle = caBundle
  }

  /// The bucket and prefix.
  public func location() throws -> S3Location { try S3Location(url: url) }

  /// A client of the remote's bucket signed with `credentials`, trusting ``caBundle`` (else `AWS_CA_BUNDLE` of
  /// `environment`) besides the system's authorities.
  /// - Throws: ``SyncError`` with code `invalidArgument` for a malformed URL or endpoint, or a CA bundle that
  ///   cannot be read or holds no PEM certificate.
  public func client(credentials: S3Credentials, environment: [String: String]) throws -> S3Client {
    let bundle = caBundle ?? environment["AWS_CA_BUNDLE"].flatMap { $0.isEmpty ? nil : $0 }
    if let bundle { try Self.checkCABundle(bundle) }
    return S3Client(
      endpoint: try S3Endpoint(url: endpoint), bucket: try location().bucket, credentials: credentials,
      region: region ?? S3Credentials.region(environment), etagForm: etagForm ?? .automatic, caBundle: bundle)
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
/// | `state/NAME`     | per remote: the root tree last pushed or pulled, and the head's ETag then   |
/// | `objects/HASH`   | blobs downloaded and verified, kept until the pull that needed them saved   |
/// | `tmp/`           | downloads in progress                                                      |
/// | `index`          | cache: the last scan of the package (`SyncIndex`), so a scan hashes only changed files |
/// | `trees/ab/cd…`   | tree objects known to be on a remote (pushed or fetched), by hash           |
/// | `pushing/NAME`   | objects a push to remote NAME sent, until its head moved (an interrupted push resumes) |
/// | `uploads/HASH`   | a multipart upload in progress: its upload ID and the parts that arrived    |
public struct SyncFolder: Sendable {
  /// The package.
  public let packagePath: FilePath
  /// `.NAME.docpkg-sync` beside it.
  public let path: FilePath

  /// The sync folder of the package at `packagePath` (not created).
  public init(packagePath: FilePath) {
    let normal = packagePath.lexicallyNormalized()
    self.packagePath = normal
    let name = normal.lastComponent?.string ?? "package"
    path = normal.removingLastComponent().appending(".\(name).docpkg-sync")
  }

  var remotesFile: FilePath { path.appending("remotes.json") }
  func stateFile(_ remote: String) -> FilePath { path.appending("state").appending(remote) }
  var objects: FilePath { path.appending("objects") }
  var indexFile: FilePath { path.appending("index") }
  var treeStore: FilePath { path.appending("trees") }
  func pushJournal(_ remote: String) -> FilePath { path.appending("pushing").appending(remote) }
  var uploads: FilePath { path.appending("uploads") }
  var temporary: FilePath { path.appending("tmp") }

  /// The remotes, by name.
  /// - Throws: ``SyncError`` with code `corrupt` if `remotes.json` cannot be read.
  public func remotes() throws -> [Remote] {
    guard let data = FileManager.default.contents(atPath: remotesFile.string) else { return [] }
    do { return try JSONDecoder().decode([Remote].self, from: data) } catch {
      throw SyncError(.corrupt, "cannot read the remotes in", key: remotesFile.string, serverMessage: "\(error)")
    }
  }

  /// The remote `name`.
  /// - Throws: ``SyncError`` with code `remote` if there is none.
  public func remote(_ name: String) throws -> Remote {
    guard let remote = try remotes().first(where: { $0.name == name }) else {
      throw SyncError(.remote, "no remote '\(name)' for package", key: packagePath.string)
    }
    return remote
  }

  /// Adds `remote`.
  /// - Throws: ``SyncError`` with code `remote` if one of that name exists, `invalidArgument` for a bad name or URL.
  public func add(_ remote: Remote) throws {
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

  /// Removes the remote `name` and its sync state.
  /// - Throws: ``SyncError`` with code `remote` if there is none.
  public func remove(_ name: String) throws {
    var all = try remotes()
    guard all.contains(where: { $0.name == name }) else {
      throw SyncError(.remote, "no remote '\(name)' for package", key: packagePath.string)
    }
    all.removeAll { $0.name == name }
    try write(all)
    try? FileManager.default.removeItem(atPath: stateFile(name).string)
  }

  private func write(_ remotes: [Remote]) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try writeAtomically(try encoder.encode(remotes), to: remotesFile)
  }

  /// The state of the last push or pull with `remote`: the root tree then and the head's ETag then.
  func state(_ remote: String) -> (tree: String, etag: String)? {
    guard let data = FileManager.default.contents(atPath: stateFile(remote).string) else { return nil }
    let parts = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard parts.count >= 2 else { return nil }
    return (String(parts[0]), String(parts[1]))
  }

  func setState(_ remote: String, tree: String, etag: String) throws {
    try writeAtomically(Data("\(tree)\n\(etag)\n".utf8), to: stateFile(remote))
  }

  /// Writes `data` to a temporary file in the folder and renames it over `file` (never a torn file).
  func writeAtomically(_ data: Data, to file: FilePath) throws { try Self.writeAtomically(data, to: file) }

  /// Writes `data` under a temporary name beside `file` and renames it in (never a torn file while running), with
  /// no `fsync`: for caches whose contents are checked when read (tree objects against their names, index entries
  /// against the file's device, inode, size and time), so that one a machine crash left empty or torn only costs
  /// fetching or hashing again. (An `fsync` per tree cost about 9 ms on a busy disk: 4.8 s of a 500-tree clone.)
  static func writeUnsynced(_ data: Data, to file: FilePath) throws {
    let directory = file.removingLastComponent()
    try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
    let temporary = directory.appending(".\(file.lastComponent?.string ?? "tree").\(UUID().uuidString.prefix(8))")
    do {
      // Not `Data.write`: it `fsync`s every file, even without `.atomic`.
      let descriptor = try FileDescriptor.open(
        temporary, .writeOnly, options: [.create, .exclusiveCreate],
        permissions: [.ownerReadWrite, .groupRead, .otherRead])
      try descriptor.closeAfter { _ = try descriptor.writeAll(data) }
      try Syscalls.rename(
        from: currentDirectory, RawName(path: temporary), to: currentDirectory, RawName(path: file))
    } catch {
      try? FileManager.default.removeItem(atPath: temporary.string)
      throw error
    }
  }

  /// Appends `data` to the existing `file`, with no `fsync` (for the index, a cache: see ``writeUnsynced(_:to:)``),
  /// first ending a line a crash left unfinished so that `data` starts a line of its own.
  static func appendUnsynced(_ data: Data, to file: FilePath) throws {
    let descriptor = try FileDescriptor.open(file, .readWrite, options: [.append, .noFollow])
    try descriptor.closeAfter {
      var last: UInt8 = 10
      if try descriptor.seek(offset: 0, from: .end) > 0 {
        _ = try descriptor.seek(offset: -1, from: .end)
        _ = try withUnsafeMutableBytes(of: &last) { try descriptor.read(into: $0) }
      }
      _ = try descriptor.writeAll(last == 10 ? data : Data([10]) + data)
    }
  }

  /// Writes `data` to a temporary file beside `file` and renames it over `file` (never a torn file).
  static func writeAtomically(_ data: Data, to file: FilePath) throws {
    do {
      try FileManager.default.createDirectory(
        atPath: file.removingLastComponent().string, withIntermediateDirectories: true)
      try data.write(to: URL(fileURLWithPath: file.string), options: .atomic)
    } catch {
      throw SyncError(.invalidArgument, "cannot write \(error):", key: file.string)
    }
  }
}
