import AsyncHTTPClient
import Crypto
import NIOCore
import NIOHTTP1
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client {
  /// Uploads the file at `path` as the object `key`: one PUT up to ``multipartThreshold`` bytes, a multipart upload
  /// above it (one part of ``partSize`` bytes in memory at a time; the upload is aborted if a part fails).
  /// - Parameters:
  ///   - key: The object's key below the bucket.
  ///   - path: The file to send.
  ///   - progress: Called with the bytes sent so far, after each request body.
  /// - Returns: The object's bare ETag.
  /// - Throws: ``SyncError`` naming the key, or the path when the file cannot be read.
  @discardableResult
  public func upload(
    _ key: String, fromFile path: FilePath, progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws -> String {
    let file = try await BlockingIO.run { () throws -> SystemPackage.FileDescriptor in
      do { return try SystemPackage.FileDescriptor.open(path, .readOnly) } catch {
        throw SyncError(.invalidArgument, "cannot read file \(error) to upload as '\(key)':", key: path.string)
      }
    }
    defer { try? file.close() }
    let size = try await BlockingIO.run { try Int(file.seek(offset: 0, from: .end)) }
    if size <= multipartThreshold {
      let data = try await read(file, at: 0, count: size, path: path)
      let etag = try await put(key, data: data)
      progress?(Int64(size))
      return etag
    }
    let created = try await send(.POST, key: key, query: [("uploads", "")])
    let createdText = String(decoding: try await created.data(), as: UTF8.self)[...]
    guard let uploadID = XMLText.value("UploadId", in: createdText) else {
      throw SyncError(.server, "no UploadId in the answer to starting a multipart upload of", key: key)
    }
    do {
      var parts: [(Int, String)] = []
      var offset = 0
      while offset < size {
        let count = min(partSize, size - offset)
        let data = try await read(file, at: offset, count: count, path: path)
        let number = parts.count + 1
        let response = try await send(
          .PUT, key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
          body: .bytes(ByteBuffer(bytes: data)),
          payloadHash: Data(SHA256.hash(data: data)).hexString)
        parts.append((number, response.etag ?? ""))
        offset += count
        progress?(Int64(offset))
      }
      let body =
        "<CompleteMultipartUpload>"
        + parts.map { "<Part><PartNumber>\($0.0)</PartNumber><ETag>\"\(XMLText.escape($0.1))\"</ETag></Part>" }
        .joined() + "</CompleteMultipartUpload>"
      let bodyData = Data(body.utf8)
      let completed = try await send(
        .POST, key: key, query: [("uploadId", uploadID)], body: .bytes(ByteBuffer(bytes: bodyData)),
        payloadHash: Data(SHA256.hash(data: bodyData)).hexString)
      // S3 may answer 200 with an <Error> body when completing fails late.
      let text = String(decoding: try await completed.data(), as: UTF8.self)[...]
      if let code = XMLText.value("Code", in: XMLText.blocks("Error", in: text).first ?? "") {
        throw SyncError(
          .server, "completing the multipart upload failed for", key: key, status: completed.status, serverCode: code,
          serverMessage: XMLText.value("Message", in: text))
      }
      if let etag = XMLText.value("ETag", in: text).map(bareETag), !etag.isEmpty { return etag }
      // Some servers (Ceph RGW) leave the ETag out of the answer: ask for it.
      return try await head(key)?.etag ?? ""
    } catch {
      // Aborted in a task of its own, so that it is sent even when this one was cancelled.
      _ = await Task.detached { [self] in
        _ = try? await send(.DELETE, key: key, query: [("uploadId", uploadID)])
      }.result
      throw error
    }
  }

  /// Downloads the object `key` into a new file at `path` as its bytes arrive (bounded memory), hashing them.
  /// The file is created with `O_EXCL`: the caller picks a fresh temporary name and renames it after checking.
  /// - Parameters:
  ///   - key: The object's key below the bucket.
  ///   - path: The new file.
  ///   - progress: Called with the bytes received so far.
  /// - Returns: The object's bare ETag, its SHA-256 (hex) and its size.
  /// - Throws: ``SyncError`` naming the key, or the path when the file cannot be written.
  public func download(
    _ key: String, toFile path: FilePath, progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws -> (etag: String, sha256: String, size: Int64) {
    let response = try await send(.GET, key: key)
    let file = try await BlockingIO.run { () throws -> SystemPackage.FileDescriptor in
      do {
        return try SystemPackage.FileDescriptor.open(
          path, .writeOnly, options: [.create, .exclusiveCreate],
          permissions: [.ownerReadWrite, .groupRead, .otherRead])
      } catch {
        throw SyncError(.invalidArgument, "cannot create file \(error) to download '\(key)' into:", key: path.string)
      }
    }
    var closed = false
    defer { if !closed { try? file.close() } }
    var hasher = SHA256()
    var size: Int64 = 0
    do {
      for try await buffer in response.body {
        let chunk = Data(buffer.readableBytesView)
        hasher.update(data: chunk)
        try await BlockingIO.run { _ = try file.writeAll(chunk) }
        size += Int64(chunk.count)
        progress?(size)
      }
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .transport, "GET failed while writing to \(path) the body of", key: key, serverMessage: "\(error)")
    }
    closed = true
    try await BlockingIO.run { try file.close() }
    return (response.etag ?? "", Data(hasher.finalize()).hexString, size)
  }

  private func read(_ file: SystemPackage.FileDescriptor, at offset: Int, count: Int, path: FilePath) async throws
    -> Data
  {
    try await BlockingIO.run {
      var data = Data(count: count)
      var done = 0
      do {
        while done < count {
          let n = try data.withUnsafeMutableBytes { raw in
            try file.read(
              fromAbsoluteOffset: Int64(offset + done), into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]))
          }
          if n == 0 { throw SyncError(.invalidArgument, "file shrank while it was uploaded:", key: path.string) }
          done += n
        }
      } catch let error as SyncError {
        throw error
      } catch {
        throw SyncError(.invalidArgument, "cannot read file \(error):", key: path.string)
      }
      return data
    }
  }
}
