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
  ///   - progress: Called with the bytes this call sent so far, after each request body (a resumed multipart
  ///     upload's parts that had arrived before are not sent, and not counted).
  /// - Returns: The object's bare ETag.
  /// - Throws: ``SyncError`` naming the key (`corrupt` naming the path when the file does not hash to
  ///   `expectedSHA256`); `PackageError` naming the path when the file cannot be read.
  @discardableResult
  package func upload(
    _ key: String, fromFile path: FilePath, expectedSHA256: String? = nil, record: FilePath? = nil,
    progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws -> String {
    let (file, size) = try await BlockingIO.run { () throws -> (CInt, Int) in
      let fd: CInt
      do throws(Errno) { fd = try Syscalls.openFile(path, [.readOnly, .noFollow]) } catch {
        throw PackageError.io(error, "cannot open", path: path, context: "to upload it as '\(key)'")
      }
      do throws(Errno) { return (fd, Int(try Syscalls.status(of: fd).size)) } catch {
        Syscalls.closeFile(fd)
        throw PackageError.io(error, "cannot read status of", path: path, context: "to upload it as '\(key)'")
      }
    }
    defer { Syscalls.closeFile(file) }
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

  /// Downloads the object `key` into the file at `path` as its bytes arrive (bounded memory), hashing them.
  ///
  /// Resumes: the bytes already in the file at `path` (a download cut short earlier, by this call or an earlier
  /// process) are read and hashed, and only the rest is asked for, with a ranged GET (`Range: bytes=N-`). A
  /// connection reset while the body arrives asks again for the rest, as ``retryPolicy`` allows. A server that
  /// answers a range with the whole object (200) starts the file over. The caller checks the returned hash: a
  /// kept part that is not the object's beginning (a crash tore it) shows there, and the caller starts over.
  /// - Parameters:
  ///   - key: The object's key below the bucket.
  ///   - path: The file: absent, or a part of the object's beginning kept from an earlier attempt.
  ///   - progress: Called with the bytes received so far by this call (the kept part not counted).
  /// - Returns: The object's bare ETag, the SHA-256 (hex) and size of the whole file, and how many of its bytes
  ///   this call received (the rest were kept from before).
  /// - Throws: ``SyncError`` naming the key; `PackageError` naming the path when the file cannot be read or
  ///   written.
  package func download(
    _ key: String, toFile path: FilePath, progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws -> (etag: String, sha256: String, size: Int64, received: Int64) {
    let (file, kept, keptHasher) = try await BlockingIO.run { () throws -> (CInt, Int64, Handed<SHA256>) in
      let file: CInt
      do throws(Errno) {
        file = try Syscalls.openFile(path, [.readWrite, .create, .append, .noFollow], mode: 0o644)
      } catch {
        throw PackageError.io(error, "cannot open", path: path, context: "to download '\(key)' into it")
      }
      var hasher = SHA256()
      var size: Int64 = 0
      do {
        try Syscalls.readChunks(file, path: path) { chunk in
          hasher.update(bufferPointer: chunk)
          size += Int64(chunk.count)
        }
      } catch {
        Syscalls.closeFile(file)
        throw error
      }
      return (file, size, Handed(hasher))
    }
    var closed = false
    defer { if !closed { Syscalls.closeFile(file) } }
    var hasher = keptHasher.value
    var size = kept
    var received: Int64 = 0
    var etag = ""
    // Each attempt asks for the bytes the file lacks; a reset mid-body is transient, so `retrying` asks again.
    do {
      try await retrying(.GET, key: key) { _ in
        let headers = size > 0 ? [("range", "bytes=\(size)-")] : []
        let response = try await sendOnce(.GET, key: key, headers: headers, accepting: [416])
        if response.status == 416 { return }  // nothing after `size`: the file is whole (or longer: the hash says)
        if response.status == 200, size > 0 {
          // The server sent the whole object: start the file over.
          try await BlockingIO.run {
            do throws(Errno) { try Syscalls.setSize(file, 0) } catch {
              throw PackageError.io(error, "cannot truncate", path: path)
            }
          }
          hasher = SHA256()
          size = 0
        }
        etag = response.etag ?? etag
        do {
          for try await buffer in response.body {
            let chunk = Data(buffer.readableBytesView)
            try await BlockingIO.run {
              let result = chunk.withUnsafeBytes { bytes in
                Result { () throws(Errno) in try Syscalls.writeAll(file, bytes) }
              }
              do throws(Errno) { try result.get() } catch { throw PackageError.io(error, "cannot write", path: path) }
            }
            hasher.update(data: chunk)
            size += Int64(chunk.count)
            received += Int64(chunk.count)
            progress?(received)
          }
        } catch let error as PackageError {
          throw error
        } catch is CancellationError {
          throw SyncError(.cancelled, "GET cancelled", key: key)
        } catch {
          throw bodyFailure(error, .GET, key: key, "GET failed while writing to \(path) the body of")
        }
      }
    } catch {
      // A file this call created and nothing reached goes: a failed download leaves no empty file behind.
      if size == 0 {
        closed = true
        try? await BlockingIO.run {
          Syscalls.closeFile(file)
          try LocalFiles.remove(path)
        }
      }
      throw error
    }
    closed = true
    try await BlockingIO.run {
      // Start writing the bytes to the disk now (not waiting): a later sync of the package they go into (a clone's
      // `syncfs`) then finds them written instead of flushing the whole download at the end.
      Syscalls.startWriteback(file)
      Syscalls.closeFile(file)
    }
    return (etag, Data(hasher.finalize()).hexString, size, received)
  }

  /// `count` bytes of the open file `file` (at `path`) from `offset`, read on ``BlockingIO``.
  /// - Throws: `PackageError` naming `path` if it cannot be read; ``SyncError`` with code `corrupt` if it shrank.
  func read(_ file: CInt, at offset: Int, count: Int, path: FilePath) async throws -> Data {
    try await BlockingIO.run {
      var data = Data(count: count)
      var done = 0
      while done < count {
        let result = data.withUnsafeMutableBytes { raw in
          Result { () throws(Errno) in
            try Syscalls.readBytes(
              file, into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]), at: Int64(offset + done))
          }
        }
        let n: Int
        do throws(Errno) { n = try result.get() } catch { throw PackageError.io(error, "cannot read", path: path) }
        if n == 0 {
          throw SyncError(.corrupt, "the file changed while it was uploaded (it shrank):", key: path.string)
        }
        done += n
      }
      return data
    }
  }
}
