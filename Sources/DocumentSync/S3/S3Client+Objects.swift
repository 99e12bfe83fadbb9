import AsyncHTTPClient
import DocumentPackage
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a HEAD or a listing says about an object.
package struct ObjectInfo: Sendable, Hashable {
  /// The key.
  package var key: String
  /// The size in bytes.
  package var size: Int64
  /// The bare ETag (without quotes).
  package var etag: String
}

extension S3Client {
  /// Creates the bucket; succeeds when it exists and is already the caller's.
  /// - Throws: ``SyncError`` with code `server` if the server refuses (another owner, a bad name).
  package func createBucket() async throws {
    do {
      _ = try await send(.PUT, key: nil)
    } catch let error as SyncError where error.serverCode == "BucketAlreadyOwnedByYou" {
      return
    }
  }

  /// Writes `data` as the object `key`, if `condition` holds.
  /// - Returns: The new object's bare ETag.
  /// - Throws: ``SyncError`` with code `preconditionFailed` if the condition failed (another writer was first).
  @discardableResult
  package func put(_ key: String, data: Data, condition: WriteCondition = .none) async throws -> String {
    let hash = Data(SHA256.hash(data: data)).hexString
    let form = etagForm
    let response: Response
    do {
      response = try await putOnce(key, data: data, hash: hash, condition: condition, form: form)
    } catch let error as SyncError where error.code == .preconditionFailed && form == .automatic {
      guard case .matches = condition else { throw error }
      response = try await putOnce(key, data: data, hash: hash, condition: condition, form: .unquoted)
      learn(.unquoted)
      return response.etag ?? ""
    }
    if case .matches = condition, form == .automatic { learn(.quoted) }
    return response.etag ?? ""
  }

  private func putOnce(
    _ key: String, data: Data, hash: String, condition: WriteCondition, form: ETagForm
  ) async throws -> Response {
    var headers: [(String, String)] = []
    switch condition {
    case .none: break
    case .absent: headers.append(("if-none-match", "*"))
    case .matches(let etag): headers.append(("if-match", form.header(etag)))
    }
    return try await send(.PUT, key: key, headers: headers, body: ByteBuffer(bytes: data), payloadHash: hash)
  }

  /// The object `key`'s bytes and bare ETag.
  /// - Parameters:
  ///   - key: The object's key below the bucket.
  ///   - limit: The most bytes to read; a bigger object fails (use ``download(_:toFile:progress:)`` for big
  ///     ones).
  /// - Throws: ``SyncError`` with code `noSuchKey` if there is no such object.
  package func get(_ key: String, limit: Int = 64 << 20) async throws -> (data: Data, etag: String) {
    // The request and its body are one attempt: a connection reset while the body arrives is retried too.
    try await retrying(.GET, key: key) { _ in
      let response = try await sendOnce(.GET, key: key)
      return (try await body(of: response, .GET, key: key, limit: limit), response.etag ?? "")
    }
  }

  /// The object `key`'s bytes and bare ETag if its ETag is no longer `etag`, else nil: a conditional GET
  /// (`If-None-Match`), whose 304 answer carries no body, so that asking whether a small object changed costs one
  /// round trip and no transfer. A server that ignores the condition and sends the object with the same ETag is
  /// answered nil too.
  /// - Throws: ``SyncError`` with code `noSuchKey` if there is no such object; as ``get(_:limit:)`` otherwise.
  package func get(_ key: String, ifNoneMatch etag: String, limit: Int = 64 << 20) async throws -> (
    data: Data, etag: String
  )? {
    try await retrying(.GET, key: key) { _ in
      let response = try await sendOnce(
        .GET, key: key, headers: [("if-none-match", ETagForm.quoted.header(etag))], accepting: [304])
      if response.status == 304 || response.etag == etag {
        _ = try? await response.data(limit: limit)
        return nil
      }
      return (try await body(of: response, .GET, key: key, limit: limit), response.etag ?? "")
    }
  }

  /// Deletes the bucket, which must be empty (what a test does to a remote whose bucket goes away).
  package func deleteBucket() async throws {
    _ = try await send(.DELETE, key: nil)
  }

  /// The object `key`'s size and ETag, or nil if there is none.
  package func head(_ key: String) async throws -> ObjectInfo? {
    let response = try await send(.HEAD, key: key, accepting: [404])
    guard response.status != 404 else { return nil }
    let size = response.headers.first(name: "content-length").flatMap { Int64($0) } ?? 0
    return ObjectInfo(key: key, size: size, etag: response.etag ?? "")
  }

  /// Deletes the object `key` (succeeds if there is none).
  package func delete(_ key: String) async throws {
    _ = try await send(.DELETE, key: key, accepting: [404])
  }

  /// Every object whose key starts with `prefix`, in key order (ListObjectsV2, page by page).
  package func list(prefix: String) async throws -> [ObjectInfo] {
    var objects: [ObjectInfo] = []
    var token: String?
    repeat {
      var query = [("list-type", "2"), ("prefix", prefix)]
      if let token { query.append(("continuation-token", token)) }
      // The request and its body are one attempt, as in `get`.
      let listing = try await retrying(.GET, key: prefix) { _ in
        let response = try await sendOnce(.GET, key: nil, query: query)
        return try await body(of: response, .GET, key: bucket)
      }
      let text = String(decoding: listing, as: UTF8.self)[...]
      for block in XMLText.blocks("Contents", in: text) {
        guard let key = XMLText.value("Key", in: block) else { continue }
        objects.append(
          ObjectInfo(
            key: key, size: XMLText.value("Size", in: block).flatMap { Int64($0) } ?? 0,
            etag: XMLText.value("ETag", in: block).map(bareETag) ?? ""))
      }
      token = XMLText.value("IsTruncated", in: text) == "true" ? XMLText.value("NextContinuationToken", in: text) : nil
    } while token != nil
    return objects
  }
}
