import AsyncHTTPClient
import DocumentPackage
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
  /// above it (parts of ``partSize`` bytes, at most ``partParallelism`` in flight and in memory).
  /// - Parameters:
  ///   - key: The object's key below the bucket.
  ///   - path: The file to send.
  ///   - expectedSHA256: The SHA-256 (hex) the bytes must have; when the file no longer has it (it changed
  ///     since it was hashed), nothing is written at `key`.
  ///   - record: Where a multipart upload keeps its upload ID and the parts that arrived, so that an upload
  ///     interrupted at any moment resumes without sending them again (nil: a failed upload is aborted).
  ///   - progress: Called with the bytes sent so far, after each request body.
  /// - Returns: The object's bare ETag.
  /// - Throws: ``SyncError`` naming the key, or the path when the file cannot be read (`corrupt` when it does not
  ///   hash to `expectedSHA256`).
  @discardableResult
  public func upload(
    _ key: String, fromFile path: FilePath, expectedSHA256: String? = nil, record: FilePath? = nil,
    progress: (@Sendable (Int64) -> Void)? = nil
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
      if let expectedSHA256, Data(SHA256.hash(data: data)).hexString != expectedSHA256 {
        throw SyncError(
          .corrupt, "the file changed while it was uploaded (its bytes no longer hash to \(expectedSHA256)):",
          key: path.string)
      }
      let etag = try await put(key, data: data)
      progress?(Int64(size))
      return etag
    }
    return try await multipartUpload(
      key, file: file, size: size, path: path, expectedSHA256: expectedSHA256, record: record, progress: progress)
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
    try await BlockingIO.run {
      // Start writing the bytes to the disk now (not waiting): a later sync of the package they go into (a clone's
      // `syncfs`) then finds them written instead of flushing the whole download at the end.
      Syscalls.startWriteback(file.rawValue)
      try file.close()
    }
    return (response.etag ?? "", Data(hasher.finalize()).hexString, size)
  }

  func read(_ file: SystemPackage.FileDescriptor, at offset: Int, count: Int, path: FilePath) async throws
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
