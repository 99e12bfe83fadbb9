import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// The records of interrupted multipart uploads (`uploads/NAME/HASH`) against the real server: each remote of a
/// package keeps its own and resumes from it, a record no push needs is aborted on the server and removed, and a
/// removed remote leaves none behind.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncUploadRecordTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)
  static let passphrase = "a long passphrase for the tests"
  static let partSize = 5 << 20

  /// 16 MiB + 3 bytes of SplitMix64 output: four parts of 5 MiB and a short one.
  static func bigFile(seed: UInt64) -> Data {
    var generator = SplitMix64(seed: seed)
    var words = [UInt64](repeating: 0, count: (16 << 20) / 8)
    for index in words.indices { words[index] = generator.next() }
    return words.withUnsafeBytes { Data($0) } + Data("end".utf8)
  }

  /// A package P.mydoc holding one big file, with remotes on a fresh bucket: `names` with `encrypted` says which.
  func makePackage(
    _ dir: TemporaryDirectory, remotes: [(name: String, encrypted: Bool)]
  ) async throws -> (S3Client, String) {
    let client = try await ObjectStore.freshBucket()
    try dir.write("P.mydoc/big.raw", Self.bigFile(seed: 1))
    let package = dir.appending("P.mydoc")
    for (name, encrypted) in remotes {
      try await PackageSync.addRemote(
        Remote(
          name: name, url: "s3://\(client.bucket)/\(name)", endpoint: ObjectStore.endpointURL, encrypted: encrypted),
        toPackageAt: FilePath(package), credentials: credentials,
        environment: ["DOCPKG_SYNC_PASSPHRASE": Self.passphrase])
    }
    return (client, package)
  }

  /// A sync with the remote `name` through a client of 5 MiB parts, two in flight.
  func sync(_ package: String, _ name: String, bucket: String) throws -> PackageSync {
    let folder = SyncFolder(packagePath: FilePath(package))
    let remote = try folder.remote(name)
    let client = S3Client(
      endpoint: try S3Endpoint(url: ObjectStore.endpointURL), bucket: bucket, credentials: credentials,
      region: S3Credentials.region(ObjectStore.environment), etagForm: remote.etagForm ?? .automatic,
      multipartThreshold: 6 << 20, partSize: Self.partSize, partParallelism: 2)
    return try PackageSync(
      folder: folder, remote: remote, client: client,
      passphrase: remote.encrypted == true ? Self.passphrase : nil)
  }

  /// Pushes with `sync`, cancelled as soon as a part of the big file arrived; returns the record it left.
  func interruptedPush(_ sync: PackageSync, record: String) async throws -> MultipartRecord? {
    let holder = TaskHolder<PackageSync.PushResult>()
    let task = Task {
      try await sync.push { progress in
        if progress.phase == .uploading, progress.bytesDone > 0 { holder.cancel() }
      }
    }
    holder.set(task)
    guard case .failure = await task.result else {
      Issue.record("the push was not interrupted")
      return nil
    }
    return MultipartRecord(path: FilePath(record))
  }

  /// The bytes of the parts `record` lists, of an upload of `size` bytes.
  static func recordedBytes(_ record: MultipartRecord, of size: Int64) -> Int64 {
    record.parts.keys.reduce(Int64(0)) { sum, number in
      sum + min(Int64(record.partSize), size - Int64((number - 1) * record.partSize))
    }
  }

  static func file(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  @Test func eachRemoteKeepsItsOwnRecordAndResumesFromIt() async throws {
    let dir = try TemporaryDirectory("upload-records")
    let (client, package) = try await makePackage(dir, remotes: [("plain", false), ("sealed", true)])
    let big = Self.bigFile(seed: 1)
    let hash = SHA256Hex.of(big)
    let uploads = dir.appending(".P.mydoc.docpkg-sync/uploads")
    let plain = try sync(package, "plain", bucket: client.bucket)
    let sealed = try sync(package, "sealed", bucket: client.bucket)

    let plainRecord = try #require(try await interruptedPush(plain, record: "\(uploads)/plain/\(hash)"))
    #expect(!plainRecord.parts.isEmpty)
    #expect(plainRecord.key == "plain/blobs/\(hash)")
    let plainBytes = try #require(Self.file("\(uploads)/plain/\(hash)"))
    // The encrypted remote's interrupted upload of the same blob keeps its own record beside it.
    let sealedRecord = try #require(try await interruptedPush(sealed, record: "\(uploads)/sealed/\(hash)"))
    #expect(!sealedRecord.parts.isEmpty)
    #expect(sealedRecord.key.hasPrefix("sealed/blobs/") && sealedRecord.uploadID != plainRecord.uploadID)
    #expect(Self.file("\(uploads)/plain/\(hash)") == plainBytes)

    // Each push resumes its own upload: it sends the parts its record does not list, and only those.
    guard case .pushed(_, 1, _, let sentPlain) = try await plain.push() else {
      Issue.record("the plain push did not push the blob")
      return
    }
    #expect(sentPlain == Int64(big.count) - Self.recordedBytes(plainRecord, of: Int64(big.count)))
    #expect(!FileManager.default.fileExists(atPath: "\(uploads)/plain/\(hash)"))
    #expect(try await client.get("plain/blobs/\(hash)", limit: 32 << 20).data == big)
    let sealedSize = SealedFormat.sealedSize(plainSize: Int64(big.count))
    guard case .pushed(_, 1, _, let sentSealed) = try await sealed.push() else {
      Issue.record("the encrypted push did not push the blob")
      return
    }
    #expect(sentSealed == sealedSize - Self.recordedBytes(sealedRecord, of: sealedSize))
    #expect(!FileManager.default.fileExists(atPath: "\(uploads)/sealed/\(hash)"))
    let copy = dir.appending("Copy.mydoc")
    try await PackageSync.clone(
      from: "s3://\(client.bucket)/sealed", endpoint: ObjectStore.endpointURL, to: FilePath(copy),
      credentials: credentials, environment: ["DOCPKG_SYNC_PASSPHRASE": Self.passphrase])
    #expect(Self.file(copy + "/big.raw") == big)
  }

  @Test func aRecordNoPushNeedsIsAbortedAndARemovedRemoteLeavesNone() async throws {
    let dir = try TemporaryDirectory("upload-leftovers")
    let (client, package) = try await makePackage(dir, remotes: [("origin", false)])
    let sync = try sync(package, "origin", bucket: client.bucket)
    let syncFolder = dir.appending(".P.mydoc.docpkg-sync")
    let first = SHA256Hex.of(Self.bigFile(seed: 1))
    _ = try #require(try await interruptedPush(sync, record: "\(syncFolder)/uploads/origin/\(first)"))
    #expect(try await inProgress(client) == ["origin/blobs/\(first)"])

    // The file changes: the push sends another blob, and the first one's upload is no longer needed.
    try dir.write("P.mydoc/big.raw", Self.bigFile(seed: 2))
    guard case .pushed = try await sync.push() else {
      Issue.record("the second push")
      return
    }
    #expect((try? FileManager.default.contentsOfDirectory(atPath: "\(syncFolder)/uploads/origin")) ?? [] == [])
    #expect(try await inProgress(client) == [])

    // Interrupted again, then the remote is removed: nothing of it stays in the sync folder.
    try dir.write("P.mydoc/big.raw", Self.bigFile(seed: 3))
    let third = SHA256Hex.of(Self.bigFile(seed: 3))
    _ = try #require(try await interruptedPush(sync, record: "\(syncFolder)/uploads/origin/\(third)"))
    #expect(FileManager.default.fileExists(atPath: "\(syncFolder)/pushing/origin"))
    try await PackageSync.removeRemote(named: "origin", fromPackageAt: FilePath(package))
    for kept in ["uploads/origin", "pushing/origin", "state/origin", "sealing/origin"] {
      #expect(!FileManager.default.fileExists(atPath: "\(syncFolder)/\(kept)"), "\(kept)")
    }
  }

  /// The keys of the multipart uploads in progress in `client`'s bucket (ListMultipartUploads).
  func inProgress(_ client: S3Client) async throws -> [String] {
    let response = try await client.send(.GET, key: nil, query: [("uploads", "")])
    let text = String(decoding: try await response.data(), as: UTF8.self)[...]
    return XMLText.blocks("Upload", in: text).compactMap { XMLText.value("Key", in: $0) }.sorted()
  }
}
