import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The one place a remote's objects are named and their bodies sealed or opened.
//
// The sync protocol names objects by their plain hashes and handles plain bodies; a remote stores them as they are
// (plain) or under keyed names with sealed bodies (encrypted, RemoteCipher). `RemoteObjects` is that choice, made
// once: `PackageSync.unlock()` is the only way to get one, and for an encrypted remote it opens the key first.
// So an object of an encrypted remote cannot be named or written before the key is open: code that has no
// `RemoteObjects` has no object names (the head, the key object and the folders' prefixes are the same either way,
// and stay on `PackageSync`).

/// A remote's objects as the sync protocol sees them (plain names, plain bodies), in front of its S3 client:
/// plain, or sealed for an encrypted remote.
struct RemoteObjects: Sendable {
  /// The client of the remote's bucket.
  let client: S3Client
  /// The bucket and prefix.
  let location: S3Location
  /// The keys of an encrypted remote; nil for a plain one.
  private let cipher: RemoteCipher?

  /// Made by ``PackageSync/unlock()`` only.
  fileprivate init(client: S3Client, location: S3Location, cipher: RemoteCipher?) {
    (self.client, self.location, self.cipher) = (client, location, cipher)
  }

  /// Whether names are keyed hashes and bodies sealed.
  var isSealed: Bool { cipher != nil }

  /// The name on the remote of the object whose plain hash is `hash`: the hash itself, or its keyed hash.
  func name(_ hash: String) -> String { cipher?.name(hash) ?? hash }
  /// The key of blob `hash`.
  func blobKey(_ hash: String) -> String { location.key("blobs/\(name(hash))") }
  /// The key of tree `hash`.
  func treeKey(_ hash: String) -> String { location.key("trees/\(name(hash))") }

  /// The `states/` key of the remote's history entry for `head`.
  func stateKey(_ head: RemoteHead) -> String {
    let milliseconds = String(Int64(head.date.timeIntervalSince1970 * 1000))
    let stamp = String(repeating: "0", count: max(0, 13 - milliseconds.count)) + milliseconds
    return location.key("states/\(stamp)-\(name(head.tree))")
  }

  /// The names of the objects under `folder` (`blobs`, `trees`): one listing.
  func names(in folder: String) async throws -> Set<String> {
    Set(
      try await client.list(prefix: location.key("\(folder)/")).map { String($0.key.split(separator: "/").last ?? "") })
  }

  /// The bytes an object of `size` plain bytes takes on the remote.
  func storedSize(_ size: Int64) -> Int64 { cipher == nil ? size : SealedFormat.sealedSize(plainSize: size) }

  /// `plain` as the body of an object of `kind`: itself, or sealed.
  func sealed(_ plain: Data, kind: SealedKind, contentHash: String? = nil) -> Data {
    cipher?.seal(plain, kind: kind, contentHash: contentHash) ?? plain
  }

  /// The plaintext of the body `data` of object `key`, of `kind`.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if a sealed object does not open.
  func opened(_ data: Data, kind: SealedKind, key: String) throws -> Data {
    try cipher?.open(data, kind: kind, key: key) ?? data
  }

  /// Writes `plain` as the object `key` of `kind` (sealed for an encrypted remote).
  /// - Returns: The object's ETag.
  @discardableResult
  func put(
    _ key: String, _ plain: Data, kind: SealedKind, contentHash: String? = nil,
    condition: WriteCondition = .none
  ) async throws -> String {
    try await client.put(key, data: sealed(plain, kind: kind, contentHash: contentHash), condition: condition)
  }

  /// The plaintext of object `key` of `kind`, and its ETag.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if a sealed object does not open; the client's.
  func get(_ key: String, kind: SealedKind, limit: Int = 64 << 20) async throws -> (data: Data, etag: String) {
    let (data, etag) = try await client.get(key, limit: limit)
    return (try opened(data, kind: kind, key: key), etag)
  }

  /// The tree `hash`, fetched and checked against its hash.
  /// - Throws: ``SyncError`` with code `corrupt` naming its key if it does not open, hash or parse; the client's.
  func tree(_ hash: String) async throws -> TreeObject {
    let key = treeKey(hash)
    return try PackageSync.tree(decoding: try await get(key, kind: .tree).data, key: key, expectedHash: hash)
  }

  /// Uploads blob `hash` from `file`: as it is, or sealed into `sealing` first (a segment at a time; the same
  /// bytes every time, so a multipart upload resumes), the sealed copy removed after.
  /// - Parameter record: Where the multipart upload's record is kept.
  func uploadBlob(
    _ hash: String, from file: FilePath, sealingIn sealing: FilePath, record: FilePath,
    progress: @escaping @Sendable (Int64) -> Void
  ) async throws {
    let key = blobKey(hash)
    guard let cipher else {
      try await client.upload(key, fromFile: file, expectedSHA256: hash, record: record, progress: progress)
      return
    }
    let sealedFile = sealing.appending(hash)
    try await BlockingIO.run {
      try LocalFiles.makeDirectories(sealing)
      try cipher.sealFile(at: file, blob: hash, to: sealedFile)
    }
    do { try await client.upload(key, fromFile: sealedFile, record: record, progress: progress) } catch {
      _ = try? await BlockingIO.run { try LocalFiles.remove(sealedFile) }
      throw error
    }
    _ = try? await BlockingIO.run { try LocalFiles.remove(sealedFile) }
  }

  /// Downloads blob `hash` into `partial` (resuming what it holds), as ``S3Client/download(_:toFile:progress:)``
  /// does. Sealed, it is downloaded into `partial.sealed` (so a cut download resumes by byte offset) and then
  /// opened into `partial`; the hash returned is the plaintext's.
  /// - Throws: ``SyncError`` with code `corrupt` naming the key if the sealed blob does not open (it is then
  ///   removed, so that the next attempt downloads it again); the client's errors.
  func downloadBlob(
    _ hash: String, to partial: FilePath, progress: @escaping @Sendable (Int64) -> Void
  ) async throws -> (etag: String, sha256: String, size: Int64, received: Int64) {
    let key = blobKey(hash)
    guard let cipher else { return try await client.download(key, toFile: partial, progress: progress) }
    let sealedPartial = FilePath(partial.string + ".sealed")
    // Opens what arrived into `partial`; the sealed copy goes either way (a next attempt downloads it again).
    func open(_ result: (etag: String, sha256: String, size: Int64, received: Int64)) async throws -> (
      etag: String, sha256: String, size: Int64, received: Int64
    ) {
      do {
        let plainHash = try await BlockingIO.run { try cipher.openFile(at: sealedPartial, key: key, to: partial) }
        _ = try? await BlockingIO.run { try LocalFiles.remove(sealedPartial) }
        return (result.etag, plainHash, result.size, result.received)
      } catch {
        _ = try? await BlockingIO.run { try LocalFiles.remove(sealedPartial) }
        throw error
      }
    }
    let result = try await client.download(key, toFile: sealedPartial, progress: progress)
    do { return try await open(result) } catch let error as SyncError
      where error.code == .corrupt && result.received < result.size
    {
      // The kept part may not have been the object's beginning: once more, from the first byte.
      return try await open(try await client.download(key, toFile: sealedPartial, progress: progress))
    }
  }
}

/// An encrypted remote's keys once opened, shared by the syncs of one remote: only ``PackageSync/unlock()`` reads
/// them.
final class UnlockedKeys: Sendable {
  fileprivate let cipher: NIOLockedValueBox<RemoteCipher?>
  init(_ cipher: RemoteCipher? = nil) { self.cipher = NIOLockedValueBox(cipher) }
}

extension PackageSync {
  /// The remote's objects, plain or sealed: for an encrypted remote the key is opened with the passphrase first
  /// (once; later calls return at once). Every operation gets its object names and bodies from here, so none of an
  /// encrypted remote is ever named or written in plain.
  /// - Throws: ``SyncError`` with code `passphrase` if none was given or it does not open the key, `corrupt` if the
  ///   key-parameters object is missing or malformed.
  func unlock() async throws -> RemoteObjects {
    guard remote.encrypted == true else { return RemoteObjects(client: client, location: location, cipher: nil) }
    if let cipher = keys.cipher.withLockedValue({ $0 }) {
      return RemoteObjects(client: client, location: location, cipher: cipher)
    }
    let cipher = try await Self.openKey(client: client, key: keyParametersKey, passphrase: passphrase)
    keys.cipher.withLockedValue { $0 = cipher }
    return RemoteObjects(client: client, location: location, cipher: cipher)
  }
}
