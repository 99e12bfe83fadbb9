import AsyncHTTPClient
import DocumentPackage
import NIOConcurrencyHelpers
import NIOCore
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A multipart upload in progress, kept in a file so that a killed upload resumes: the upload ID, the key, the part
/// size, then one `NUMBER ETAG` line per part that arrived (appended as each is answered).
///
///     docpkg-multipart 1
///     KEY UPLOADID PARTSIZE
///     1 9b2c…
///     3 77a0…
struct MultipartRecord {
  var key: String
  var uploadID: String
  var partSize: Int
  var parts: [Int: String] = [:]

  init(key: String, uploadID: String, partSize: Int) {
    self.key = key
    self.uploadID = uploadID
    self.partSize = partSize
  }

  /// The record at `path`, or nil if there is none or it is not one.
  init?(path: FilePath) {
    guard let data = (try? LocalFiles.read(path)) ?? nil else { return nil }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard lines.count >= 2, lines[0] == "docpkg-multipart 1" else { return nil }
    let header = lines[1].split(separator: " ")
    guard header.count == 3, let size = Int(header[2]) else { return nil }
    self.init(key: VersionEscaping.unescape(header[0]), uploadID: String(header[1]), partSize: size)
    for line in lines.dropFirst(2) {
      let fields = line.split(separator: " ")
      if fields.count == 2, let number = Int(fields[0]) { parts[number] = String(fields[1]) }
    }
  }

  var header: Data {
    Data("docpkg-multipart 1\n\(VersionEscaping.escape(key)) \(uploadID) \(partSize)\n".utf8)
  }
}

extension S3Client {
  /// Uploads `size` bytes of `file` as a multipart upload: parts of ``partSize`` bytes read in order (and hashed),
  /// at most ``partParallelism`` of them in flight, so memory holds at most that many parts.
  ///
  /// With a `record` path, the upload ID and each part that arrived are written there: an upload killed at any
  /// moment resumes from it (the parts listed are read and hashed again, not sent), and it is removed when the
  /// upload completes. Without one, a failed upload is aborted. `progress` counts the bytes of the parts this
  /// call sends, not those of the parts that had arrived before.
  /// - Returns: The object's bare ETag.
  /// - Throws: ``SyncError`` with code `corrupt` when `expectedSHA256` is given and the bytes read differ (the
  ///   file changed while it was sent: the upload is aborted, nothing is written at `key`).
  func multipartUpload(
    _ key: String, file: CInt, size: Int, path: FilePath, expectedSHA256: String?,
    record: FilePath?,
    progress: (@Sendable (Int64) -> Void)?
  ) async throws -> String {
    if let record, let resumed = MultipartRecord(path: record), resumed.key == key, resumed.partSize == partSize {
      // The server may have forgotten it (aborted, expired): then it starts over.
      do {
        return try await sendParts(
          key, resumed, file: file, size: size, path: path, expectedSHA256: expectedSHA256, record: record,
          progress: progress)
      } catch let error as SyncError where error.code == .noSuchKey {
        _ = try? await BlockingIO.run { try LocalFiles.remove(record) }
      }
    }
    let created = try await send(.POST, key: key, query: [("uploads", "")])
    let createdText = String(decoding: try await body(of: created, .POST, key: key), as: UTF8.self)[...]
    guard let uploadID = XMLText.value("UploadId", in: createdText) else {
      throw SyncError(.server, "no UploadId in the answer to starting a multipart upload of", key: key)
    }
    let fresh = MultipartRecord(key: key, uploadID: uploadID, partSize: partSize)
    if let record {
      try await BlockingIO.run { try LocalFiles.writeAtomically(fresh.header, to: record) }
    }
    return try await sendParts(
      key, fresh, file: file, size: size, path: path, expectedSHA256: expectedSHA256, record: record,
      progress: progress)
  }

  private func sendParts(
    _ key: String, _ upload: MultipartRecord, file: CInt, size: Int, path: FilePath,
    expectedSHA256: String?, record: FilePath?, progress: (@Sendable (Int64) -> Void)?
  ) async throws -> String {
    let uploadID = upload.uploadID
    let done = NIOLockedValueBox((parts: upload.parts, bytes: Int64(0)))
    let partCount = max(1, (size + partSize - 1) / partSize)
    let recordFile = record
    do {
      var hasher = SHA256()
      try await withThrowingTaskGroup(of: Void.self) { group in
        var inFlight = 0
        for number in 1...partCount {
          let offset = (number - 1) * partSize
          let count = min(partSize, size - offset)
          let data = try await read(file, at: offset, count: count, path: path)
          hasher.update(data: data)
          if upload.parts[number] != nil { continue }  // arrived before: read for the hash, not sent
          if inFlight >= partParallelism {
            _ = try await group.next()
            inFlight -= 1
          }
          inFlight += 1
          group.addTask { [self] in
            let response = try await send(
              .PUT, key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
              body: ByteBuffer(bytes: data), payloadHash: Data(SHA256.hash(data: data)).hexString)
            let etag = response.etag ?? ""
            if let recordFile {
              try? await BlockingIO.run {
                let fd = try LocalFiles.openForAppending(recordFile)
                defer { Syscalls.closeFile(fd) }
                try LocalFiles.append(Data("\(number) \(etag)\n".utf8), to: fd, path: recordFile)
              }
            }
            done.withLockedValue {
              $0.parts[number] = etag
              $0.bytes += Int64(count)
              progress?($0.bytes)
            }
          }
        }
        try await group.waitForAll()
      }
      if let expectedSHA256, Data(hasher.finalize()).hexString != expectedSHA256 {
        throw SyncError(
          .corrupt, "the file changed while it was uploaded (its bytes no longer hash to \(expectedSHA256)):",
          key: path.string)
      }
      let parts = done.withLockedValue { $0.parts }.sorted { $0.key < $1.key }
      let body =
        "<CompleteMultipartUpload>"
        + parts.map { "<Part><PartNumber>\($0.key)</PartNumber><ETag>\"\(XMLText.escape($0.value))\"</ETag></Part>" }
        .joined() + "</CompleteMultipartUpload>"
      let bodyData = Data(body.utf8)
      let completed = try await send(
        .POST, key: key, query: [("uploadId", uploadID)], body: ByteBuffer(bytes: bodyData),
        payloadHash: Data(SHA256.hash(data: bodyData)).hexString)
      // S3 may answer 200 with an <Error> body when completing fails late.
      let text = String(decoding: try await self.body(of: completed, .POST, key: key), as: UTF8.self)[...]
      if let code = XMLText.value("Code", in: XMLText.blocks("Error", in: text).first ?? "") {
        throw SyncError(
          .server, "completing the multipart upload failed for", key: key, status: completed.status, serverCode: code,
          serverMessage: XMLText.value("Message", in: text))
      }
      if let record { _ = try? await BlockingIO.run { try LocalFiles.remove(record) } }
      if let etag = XMLText.value("ETag", in: text).map(bareETag), !etag.isEmpty { return etag }
      // Some servers (Ceph RGW) leave the ETag out of the answer: ask for it.
      return try await head(key)?.etag ?? ""
    } catch let error as SyncError where record != nil && error.code != .corrupt {
      // Kept for the next run to resume (a cancelled or failed transfer).
      throw error
    } catch {
      // Aborted in a task of its own, so that it is sent even when this one was cancelled.
      _ = await Task.detached { [self] in try? await abortMultipartUpload(key, uploadID: uploadID) }.result
      if let record { _ = try? await BlockingIO.run { try LocalFiles.remove(record) } }
      throw error
    }
  }

  /// Aborts the multipart upload `uploadID` of `key`: the server drops the parts it holds (an upload neither
  /// completed nor aborted keeps them, and on AWS they are billed, until a lifecycle rule removes them).
  /// - Throws: ``SyncError`` naming the key (`noSuchKey` when the server does not know the upload).
  package func abortMultipartUpload(_ key: String, uploadID: String) async throws {
    _ = try await send(.DELETE, key: key, query: [("uploadId", uploadID)])
  }
}
