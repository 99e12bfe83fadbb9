import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// The S3 client against the real server (Ceph RGW from `Scripts/objectstore.sh`): round trips, listing,
/// conditional writes in both ETag forms, multipart upload and streaming download, errors.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct S3ClientTests {
  @Test func putGetHeadDeleteRoundTrip() async throws {
    let client = try await ObjectStore.freshBucket()
    let data = Data("hello, object store ✓".utf8)
    let etag = try await client.put("dir/a b+c.txt", data: data)
    #expect(!etag.isEmpty && !etag.hasPrefix("\""))
    let (read, readETag) = try await client.get("dir/a b+c.txt")
    #expect(read == data)
    #expect(readETag == etag)
    let info = try #require(try await client.head("dir/a b+c.txt"))
    #expect(info.size == Int64(data.count))
    #expect(info.etag == etag)
    try await client.delete("dir/a b+c.txt")
    #expect(try await client.head("dir/a b+c.txt") == nil)
  }

  /// What a watch polls the head with: nil (the server's 304) while the ETag is the one given, the new bytes after.
  @Test func conditionalGetAnswersNothingWhileTheObjectIsUnchanged() async throws {
    let client = try await ObjectStore.freshBucket()
    let etag = try await client.put("head", data: Data("first".utf8))
    #expect(try await client.get("head", ifNoneMatch: etag) == nil)
    let newer = try await client.put("head", data: Data("second".utf8))
    let changed = try #require(try await client.get("head", ifNoneMatch: etag))
    #expect(changed.data == Data("second".utf8))
    #expect(changed.etag == newer)
    #expect(try await client.get("head", ifNoneMatch: newer) == nil)
    await #expect(throws: SyncError.self) { try await client.get("no/such/key", ifNoneMatch: etag) }
  }

  @Test func missingKeyErrorNamesTheKeyAndTheServersCode() async throws {
    let client = try await ObjectStore.freshBucket()
    let error = try await #require(throws: SyncError.self) { try await client.get("no/such/key") }
    #expect(error.code == .noSuchKey)
    #expect(error.status == 404)
    #expect(error.description.contains("'no/such/key'"))
    #expect(error.description.contains("NoSuchKey"))
  }

  @Test func wrongSecretIsRefusedWithTheServersMessage() async throws {
    let good = try await ObjectStore.freshBucket()
    let bad = S3Client(
      endpoint: try S3Endpoint(url: ObjectStore.endpointURL), bucket: good.bucket,
      credentials: S3Credentials(
        accessKeyID: try S3Credentials.fromEnvironment(ObjectStore.environment).accessKeyID,
        secretAccessKey: "wrong-secret"))
    let error = try await #require(throws: SyncError.self) { try await bad.put("k", data: Data("x".utf8)) }
    #expect(error.code == .server)
    #expect(error.status == 403)
    #expect(error.serverCode == "SignatureDoesNotMatch")
  }

  @Test func listsEveryKeyUnderAPrefixAcrossPages() async throws {
    let client = try await ObjectStore.freshBucket()
    let keys = (0..<1_005).map { String(format: "p/k%04d", $0) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for chunk in stride(from: 0, to: keys.count, by: 100) {
        group.addTask {
          for key in keys[chunk..<min(chunk + 100, keys.count)] { try await client.put(key, data: Data(key.utf8)) }
        }
      }
      try await group.waitForAll()
    }
    try await client.put("other", data: Data())
    let listed = try await client.list(prefix: "p/")
    #expect(listed.map(\.key) == keys)
    #expect(listed.allSatisfy { $0.size == 7 })
  }

  @Test func createOnlyWriteFailsOnAnExistingKey() async throws {
    let client = try await ObjectStore.freshBucket()
    try await client.put("head", data: Data("1".utf8), condition: .absent)
    let error = try await #require(throws: SyncError.self) {
      try await client.put("head", data: Data("2".utf8), condition: .absent)
    }
    #expect(error.code == .preconditionFailed)
    #expect(try await client.get("head").data == Data("1".utf8))
  }

  /// The server's quirk, pinned: RGW compares `If-Match` with the bare ETag, so the quoted (standard) form fails
  /// with 412 even when the ETag matches, and the unquoted form succeeds.
  @Test func ifMatchFormsOnThisServer() async throws {
    let quoted = try await ObjectStore.freshBucket(etagForm: .quoted)
    let etag = try await quoted.put("head", data: Data("1".utf8))
    let unquoted = try ObjectStore.client(of: quoted.bucket, etagForm: .unquoted)
    let quotedResult = await #expect(throws: SyncError.self) {
      try await quoted.put("head", data: Data("2".utf8), condition: .matches(etag))
    }
    #expect(quotedResult?.code == .preconditionFailed)
    let next = try await unquoted.put("head", data: Data("2".utf8), condition: .matches(etag))
    #expect(try await unquoted.get("head").data == Data("2".utf8))
    // A stale ETag fails in the unquoted form too.
    let stale = await #expect(throws: SyncError.self) {
      try await unquoted.put("head", data: Data("3".utf8), condition: .matches(etag))
    }
    #expect(stale?.code == .preconditionFailed)
    #expect(next != etag)
  }

  /// `.automatic` sends the standard quoted form first, falls back to the bare one on 412, learns it, and never
  /// lets a stale ETag through.
  @Test func automaticFormLearnsAndStillRefusesStaleWrites() async throws {
    let client = try await ObjectStore.freshBucket(etagForm: .automatic)
    let first = try await client.put("head", data: Data("1".utf8))
    let second = try await client.put("head", data: Data("2".utf8), condition: .matches(first))
    #expect(client.etagForm == .unquoted)
    let error = await #expect(throws: SyncError.self) {
      try await client.put("head", data: Data("3".utf8), condition: .matches(first))
    }
    #expect(error?.code == .preconditionFailed)
    _ = try await client.put("head", data: Data("3".utf8), condition: .matches(second))
    #expect(try await client.get("head").data == Data("3".utf8))
  }

  @Test func multipartUploadAndStreamingDownloadKeepTheBytes() async throws {
    let client = try await ObjectStore.freshBucket(multipartThreshold: 6 << 20)
    let dir = try TemporaryDirectory("s3-multipart")
    var bytes = [UInt8](repeating: 0, count: 13 << 20 + 12_345)
    var state: UInt64 = 7
    for index in bytes.indices {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    let source = try dir.write("big.bin", Data(bytes))
    let progress = ProgressLog()
    let etag = try await client.upload("big", fromFile: FilePath(source)) { progress.record($0) }
    #expect(etag.hasSuffix("-3"))  // three parts of 5 MiB, 5 MiB, the rest
    #expect(progress.values.last == Int64(bytes.count))
    let target = FilePath(dir.appending("copy.bin"))
    let result = try await client.download("big", toFile: target)
    #expect(result.size == Int64(bytes.count))
    #expect(result.sha256 == SHA256Hex.of(Data(bytes)))
    #expect(try Data(contentsOf: URL(fileURLWithPath: target.string)) == Data(bytes))
  }
}

/// Progress values seen by a callback, in order.
final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var seen: [Int64] = []
  func record(_ value: Int64) { lock.withLock { seen.append(value) } }
  var values: [Int64] { lock.withLock { seen } }
}
