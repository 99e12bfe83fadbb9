import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A blob's download, and what an interrupted one leaves in the sync folder: see fetchBlobs.

extension PackageSync {
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
