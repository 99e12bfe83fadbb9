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

extension PackageSync {
  /// Phase 4: uploads `uploads` to `objects`, blobs then trees (the head, written after, never names an object
  /// that is not there), ``parallelism`` at once, each noted in `journal` once it arrived.
  /// - Returns: The bytes of blobs sent, as stored (the parts of a resumed multipart upload that had arrived
  ///   before are not sent again, and not counted).
  func send(
    _ uploads: PushUploads, to objects: RemoteObjects, journal: PushJournal, progress: SyncProgress.Handler?
  ) async throws -> Int64 {
    // Bytes as stored (sealed, for an encrypted remote). Progress counts them as parts go up; a resumed
    // multipart upload's parts that had arrived count as done when its blob is, and not as sent.
    let totalBytes = uploads.blobs.reduce(Int64(0)) { $0 + objects.storedSize($1.size) }
    let objectsTotal = uploads.blobs.count + uploads.trees.count
    let counter = TransferCounter()
    let sentBytes = TransferCounter()
    let report: @Sendable ((objects: Int, bytes: Int64)) -> Void = { done in
      progress?(
        SyncProgress(
          phase: .uploading, objectsDone: done.objects, objectsTotal: objectsTotal, bytesDone: done.bytes,
          bytesTotal: totalBytes))
    }
    try await forEachConcurrently(uploads.blobs) { [self] blob in
      let reported = NIOLockedValueBox(Int64(0))
      let sent = try await uploadBlob(blob.hash, from: blob.file, to: objects) { bytes in
        let delta = reported.withLockedValue { before in
          let delta = max(0, bytes - before)
          before += delta
          return delta
        }
        report(counter.add(objects: 0, bytes: delta))
      }
      await journal.note(blob.hash)
      _ = sentBytes.add(objects: 1, bytes: sent)
      let resumed = max(0, objects.storedSize(blob.size) - reported.withLockedValue { $0 })
      report(counter.add(objects: 1, bytes: resumed))
    }
    try await forEachConcurrently(uploads.trees) { tree in
      try await objects.put(objects.treeKey(tree.hash), tree.data, kind: .tree, contentHash: tree.hash)
      await journal.note(tree.hash)
      report(counter.add(objects: 1, bytes: 0))
    }
    return sentBytes.bytes
  }
}
