import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A blob's upload, and what an interrupted one leaves in the sync folder.
//
// A blob above the client's multipart threshold goes up as a multipart upload whose record, `uploads/NAME/HASH`
// (NAME: the remote; `MultipartRecord`: the key, the upload ID, the part size, one line per part that arrived),
// lets a push killed mid-file resume it. The record is the remote's own: two remotes of one package (one of them
// encrypted, or two servers) upload the same blob under different keys and upload IDs, and neither's record may
// replace the other's. A record is removed when its upload completes, or fails for good (the upload is aborted);
// one that an interrupted push left is resumed by the next push that sends the blob — and when that push does not
// send it (the file changed meanwhile), the push, once its head moved or was found up to date, aborts the upload
// on the server and removes the record. Removing the remote removes its records (`SyncFolder.remove`).

extension PackageSync {
  /// Uploads blob `hash` from the package's file `file` to `objects`: as it is, or for an encrypted remote sealed
  /// into the sync folder's `sealing/NAME/` first (``RemoteObjects/uploadBlob(_:from:sealingIn:record:progress:)``),
  /// its multipart upload recorded in `uploads/NAME/HASH`.
  /// - Parameters:
  ///   - hash: The blob's SHA-256 (hex): its name, and what its bytes must hash to.
  ///   - file: The package's file holding it.
  ///   - objects: The remote's objects.
  ///   - progress: Called with the bytes of this blob sent so far, as parts go up.
  /// - Returns: The bytes sent: the blob's size (sealed, for an encrypted remote), less the parts of a resumed
  ///   multipart upload that had arrived before.
  /// - Throws: ``SyncError`` naming the key (`corrupt` naming the file when it no longer hashes to `hash`);
  ///   `PackageError` naming the path that cannot be read or written.
  func uploadBlob(
    _ hash: String, from file: FilePath, to objects: RemoteObjects, progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws -> Int64 {
    let sent = NIOLockedValueBox(Int64(0))
    try await objects.uploadBlob(
      hash, from: file, sealingIn: folder.sealing(remote.name), record: folder.uploads(remote.name).appending(hash)
    ) { bytes in
      sent.withLockedValue { $0 = max($0, bytes) }
      progress?(bytes)
    }
    return sent.withLockedValue { $0 }
  }

  /// Aborts the multipart uploads to this remote that are still recorded and removes their records, and the sealed
  /// blobs an interrupted push left: called once a push moved the head or found it up to date, when the remote
  /// holds every blob of the package's state, so no later push would resume them. Best effort: a record whose
  /// upload the server could not be told to abort (unreachable) stays for the next push to try again.
  func dropLeftoverUploads() async {
    let uploads = folder.uploads(remote.name)
    let sealing = folder.sealing(remote.name)
    let records =
      await
      (try? BlockingIO.run { () throws -> [(FilePath, MultipartRecord?)] in
        let (_, entries) = try Syscalls.io("cannot list", path: uploads.string) { () throws(Errno) in
          try Syscalls.listDirectory(uploads)
        }
        return entries.filter { $0.status.kind == .file }.map { entry in
          let path = uploads.appending(entry.rawName)
          return (path, MultipartRecord(path: path))
        }
      }) ?? []
    for (path, record) in records {
      if let record {
        do { try await client.abortMultipartUpload(record.key, uploadID: record.uploadID) } catch let error
          as SyncError where error.code != .noSuchKey
        {
          continue
        } catch {}
      }
      _ = try? await BlockingIO.run { try LocalFiles.remove(path) }
    }
    _ = try? await BlockingIO.run { try LocalFiles.remove(sealing) }
  }
}
