import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// A transfer that stalls (issue 39, point 2): the push stops at its deadline, and the next one resumes the
/// multipart upload where the stall left it instead of sending the file again.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncStalledTransferTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  @Test func aStalledUploadResumesRatherThanStartingOver() async throws {
    let serverDir = try TemporaryDirectory("stalled-upload-server")
    let network = try await MisbehavingServer(.forward, in: serverDir)
    defer { withExtendedLifetime((serverDir, network)) {} }
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("stalled-upload")
    // 48 MiB: six parts of 8 MiB.
    var generator = SplitMix64(seed: 39)
    let size = 48 << 20
    var bytes = Data(count: size)
    bytes.withUnsafeMutableBytes { raw in
      for word in 0..<size / 8 { raw.storeBytes(of: generator.next(), toByteOffset: word * 8, as: UInt64.self) }
    }
    try dir.write("P.mydoc/Big.bin", bytes)
    let package = dir.appending("P.mydoc")
    try await PackageSync.addRemote(
      Remote(name: "origin", url: "s3://\(client.bucket)/stalled", endpoint: network.endpoint),
      toPackageAt: FilePath(package), credentials: credentials)

    // The first push stalls once some parts arrived, and its deadline stops it.
    var environment = ObjectStore.environment
    environment["DOCPKG_SYNC_DEADLINE"] = "90"
    let first = try PackageSync(
      packageAt: FilePath(package), remote: "origin", credentials: credentials, environment: environment)
    let push = Task { try await first.push() }
    let uploads = dir.appending(".P.mydoc.docpkg-sync/uploads/origin")
    #expect(await eventually(seconds: 80) { partsRecorded(in: uploads) >= 2 })
    network.stalled = true
    let stopped = await #expect(throws: SyncError.self) { try await push.value }
    #expect(stopped?.code == .timeout)
    let arrived = partsRecorded(in: uploads)
    #expect(arrived >= 2 && arrived < 6, "\(arrived) parts arrived before the stall")

    // The next push sends only the parts that had not arrived.
    network.stalled = false
    let second = try PackageSync(packageAt: FilePath(package), remote: "origin", credentials: credentials)
    guard case .pushed(_, 1, _, let bytes) = try await second.push() else {
      Issue.record("the second push did not send the blob")
      return
    }
    #expect(bytes <= Int64(size - arrived * (8 << 20)), "sent \(bytes) of \(size) bytes")
    let clone = dir.appending("C.mydoc")
    try await PackageSync.clone(
      from: "s3://\(client.bucket)/stalled", endpoint: ObjectStore.endpointURL, to: FilePath(clone),
      credentials: credentials)
    #expect(FileManager.default.contentsEqual(atPath: clone + "/Big.bin", andPath: package + "/Big.bin"))
  }

  /// The parts of the multipart uploads recorded under `folder` (each record: two header lines, then a line per
  /// part).
  func partsRecorded(in folder: String) -> Int {
    let records = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return records.reduce(0) { count, name in
      let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
      return count + max(0, text.split(separator: "\n").count - 2)
    }
  }
}
