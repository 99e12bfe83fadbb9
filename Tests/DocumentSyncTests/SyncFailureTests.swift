import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Failures said as failures (issue 26), against the real server: a deleted bucket, a deleted head, a head naming
/// a missing tree — each a non-zero exit within seconds and one line, and a push that never starts a new history
/// by itself (`--force-new-head` repairs).
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncFailureTests {
  /// A package pushed to a fresh bucket, and a clone of it.
  func twoDevices(_ label: String) async throws -> (TemporaryDirectory, S3Client, String, String, String) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(label)
    try dir.write("A.mydoc/Index.json", "{}\n")
    try dir.write("A.mydoc/Pages/one.txt", "one\n")
    let (a, b) = (dir.appending("A.mydoc"), dir.appending("B.mydoc"))
    let url = "s3://\(client.bucket)/p"
    try expectSuccess(["remote", "add", a, "origin", url, "--endpoint", ObjectStore.endpointURL])
    try expectSuccess(["push", a])
    try expectSuccess(["clone", url, b, "--endpoint", ObjectStore.endpointURL])
    return (dir, client, url, a, b)
  }

  func expectSuccess(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try Shell.docpkg(arguments)
    #expect(result.status == 0, "\(arguments): \(result.standardError)", sourceLocation: sourceLocation)
  }

  /// Runs `docpkg arguments`, expecting a failure within 10 s with one line on standard error that contains
  /// `words`; returns that line.
  @discardableResult
  func expectFailure(
    _ arguments: [String], saying words: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let start = ContinuousClock.now
    let result = try Shell.docpkg(arguments + ["--quiet"])
    let elapsed = ContinuousClock.now - start
    #expect(result.status != 0, "\(arguments) succeeded: \(result.standardOutput)", sourceLocation: sourceLocation)
    #expect(elapsed < .seconds(10), "\(arguments) took \(elapsed)", sourceLocation: sourceLocation)
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 1, "\(arguments): \(result.standardError)", sourceLocation: sourceLocation)
    #expect(lines.first?.hasPrefix("docpkg: error: ") == true, sourceLocation: sourceLocation)
    #expect(
      result.standardError.contains(words), "\(arguments): \(result.standardError)", sourceLocation: sourceLocation)
    return result.standardError
  }

  @Test func aDeletedBucketIsAnErrorForPullPushAndClone() async throws {
    let (dir, client, url, a, b) = try await twoDevices("fail-bucket")
    for object in try await client.list(prefix: "") { try await client.delete(object.key) }
    try await client.deleteBucket()

    try expectFailure(["pull", b], saying: "no such bucket")
    try expectFailure(["push", a], saying: "no such bucket")
    let c = dir.appending("C.mydoc")
    try expectFailure(["clone", url, c, "--endpoint", ObjectStore.endpointURL], saying: "no such bucket")
    // A refused clone leaves nothing: no package, no sync folder.
    #expect(!FileManager.default.fileExists(atPath: c))
    #expect(!FileManager.default.fileExists(atPath: dir.appending(".C.mydoc.docpkg-sync")))
  }

  @Test func aDeletedHeadIsReportedAndOnlyForceNewHeadStartsAgain() async throws {
    let (dir, client, _, a, b) = try await twoDevices("fail-head")
    defer { withExtendedLifetime(dir) {} }  // the folder lives until the test ends
    try await client.delete("p/head")

    try expectFailure(["pull", b], saying: "push --force-new-head")
    #expect(try Shell.docpkg(["put", a, "Index.json", "-"], input: Data("{\"v\":2}\n".utf8)).status == 0)
    try expectFailure(["push", a], saying: "push --force-new-head")
    #expect(try await client.head("p/head") == nil)  // no new history was started

    let repair = try Shell.docpkg(["push", a, "--force-new-head"])
    #expect(repair.status == 0, "\(repair.standardError)")
    #expect(try await client.head("p/head") != nil)
    // The other device continues from the repaired head: a fast-forward, then its own push works.
    #expect(try Shell.docpkg(["pull", b]).standardOutput == "fast-forward\n")
    #expect(try String(contentsOfFile: b + "/Index.json", encoding: .utf8) == "{\"v\":2}\n")
    #expect(try Shell.docpkg(["put", b, "Pages/two.txt", "-"], input: Data("two\n".utf8)).status == 0)
    try expectSuccess(["push", b])
    // With a whole head, --force-new-head is refused: the remote has changes to pull, and nothing is dropped.
    try expectFailure(["push", a, "--force-new-head"], saying: "nothing to repair")
  }

  @Test func aHeadNamingAMissingTreeNamesTheRepair() async throws {
    let (dir, client, url, a, b) = try await twoDevices("fail-tree")
    defer { withExtendedLifetime(dir) {} }  // the folder lives until the test ends
    #expect(try Shell.docpkg(["put", b, "Index.json", "-"], input: Data("{\"b\":1}\n".utf8)).status == 0)
    try expectSuccess(["push", b])
    let head = String(decoding: try await client.get("p/head").data, as: UTF8.self)
    let tree = try #require(head.split(separator: "\n").first { $0.hasPrefix("tree ") }?.dropFirst(5))
    try await client.delete("p/trees/\(tree)")

    try expectFailure(["pull", a], saying: "push --force-new-head")
    // A clone has no package to repair from: its hint names a command for a copy of the document, not the clone
    // that was not made.
    let c = dir.appending("C.mydoc")
    let clone = try expectFailure(
      ["clone", url, c, "--endpoint", ObjectStore.endpointURL], saying: "'docpkg push --force-new-head PACKAGE'")
    #expect(!clone.contains(c))
    #expect(!FileManager.default.fileExists(atPath: c))
    #expect(try Shell.docpkg(["put", a, "Pages/one.txt", "-"], input: Data("ONE\n".utf8)).status == 0)
    // Not "pull, then push again" (a pull cannot work): what is wrong, and the repair.
    let line = try expectFailure(["push", a], saying: "is not on the remote")
    #expect(line.contains("--force-new-head"))
    try expectSuccess(["push", b, "--force-new-head"])  // B has the state the head named: it sends it again
    #expect(try await client.head("p/trees/\(tree)") != nil)
    #expect(try Shell.docpkg(["pull", a]).standardOutput == "merged\n")
  }

  @Test func aPullWhoseBlobIsGoneLeavesNoEmptyPartialFile() async throws {
    let (dir, client, _, a, b) = try await twoDevices("fail-partial")
    defer { withExtendedLifetime(dir) {} }  // the folder lives until the test ends
    let contents = Data("a file whose blob goes\n".utf8)
    #expect(try Shell.docpkg(["put", a, "Pages/gone.txt", "-"], input: contents).status == 0)
    try expectSuccess(["push", a])
    try await client.delete("p/blobs/\(SHA256Hex.of(contents))")

    try expectFailure(["pull", b], saying: "is not on the remote")
    let temporary = dir.appending(".B.mydoc.docpkg-sync/tmp")
    let left = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
    #expect(left.filter { $0.hasSuffix(".partial") }.isEmpty, "\(left)")
  }

  @Test func aCloneCutInABlobResumesWithARangedGetAndChecksTheWhole() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("fail-resume")
    let size = 20 << 20
    let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) })
    try dir.write("Big.mydoc/big.raw", bytes)
    let url = "s3://\(client.bucket)/big"
    let credentials = try S3Credentials.fromEnvironment(ObjectStore.environment)
    let package = FilePath(dir.appending("Big.mydoc"))
    try await PackageSync.addRemote(
      Remote(name: "origin", url: url, endpoint: ObjectStore.endpointURL), toPackageAt: package,
      credentials: credentials)
    try await PackageSync(packageAt: package, remote: "origin", credentials: credentials).push()
    let hash = SHA256Hex.of(bytes)
    let copy = dir.appending("Copy.mydoc")
    let partial = dir.appending(".Copy.mydoc.docpkg-sync/tmp/\(hash).partial")

    // Cut after 6 MiB arrived: the partial download stays, and no package appears.
    func cutClone() async throws -> Int {
      let holder = TaskHolder<PackageSync>()
      let task = Task {
        try await PackageSync.clone(
          from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials
        ) { progress in
          if progress.phase == .downloading, progress.bytesDone >= 6 << 20 { holder.cancel() }
        }
      }
      holder.set(task)
      guard case .failure = await task.result else {
        Issue.record("the clone was not cut")
        return 0
      }
      #expect(!FileManager.default.fileExists(atPath: copy))
      let kept = try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int ?? 0
      #expect(kept >= 6 << 20 && kept < size)
      return kept
    }

    // The next clone asks only for the rest.
    let kept = try await cutClone()
    let seen = Totals()
    try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials
    ) { progress in
      if progress.phase == .downloading { seen.note(done: progress.bytesDone, total: progress.bytesTotal) }
    }
    #expect(seen.total == Int64(size - kept))
    #expect(seen.done == Int64(size - kept))
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy + "/big.raw")) == bytes)
    #expect(!FileManager.default.fileExists(atPath: dir.appending(".Copy.mydoc.docpkg-sync/tmp")))

    // A kept part that is not the blob's beginning fails the final check and the blob comes again, whole.
    try FileManager.default.removeItem(atPath: copy)
    try FileManager.default.removeItem(atPath: dir.appending(".Copy.mydoc.docpkg-sync"))
    _ = try await cutClone()
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
    try handle.write(contentsOf: Data("torn".utf8))
    try handle.close()
    try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials)
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy + "/big.raw")) == bytes)
  }
}

/// The largest `bytesDone` and the `bytesTotal` a progress handler saw.
final class Totals: @unchecked Sendable {
  private let lock = NSLock()
  private var doneValue: Int64 = 0
  private var totalValue: Int64 = -1
  func note(done: Int64, total: Int64) {
    lock.withLock {
      doneValue = max(doneValue, done)
      totalValue = total
    }
  }
  var done: Int64 { lock.withLock { doneValue } }
  var total: Int64 { lock.withLock { totalValue } }
}

/// Endpoints that cannot be reached fail within seconds, with one line: no server needed.
@Suite struct SyncUnreachableTests {
  @Test(arguments: [
    ("http://127.0.0.1:9", "connection refused"),  // the discard port: closed here
    ("http://nonexistent.invalid:7480", "does not resolve"),
  ])
  func anUnreachableEndpointFailsWithinSeconds(endpoint: String, words: String) throws {
    let dir = try TemporaryDirectory("fail-unreachable")
    let destination = dir.appending("C.mydoc")
    try dir.write("A.mydoc/a.txt", "a\n")
    // A remote whose server's ETag form is known: adding it asks the server nothing.
    try SyncFolder(packagePath: FilePath(dir.appending("A.mydoc"))).add(
      Remote(name: "origin", url: "s3://bucket/p", endpoint: endpoint, etagForm: .quoted))
    for arguments in [
      ["clone", "s3://bucket/p", destination, "--endpoint", endpoint], ["pull", dir.appending("A.mydoc")],
      ["push", dir.appending("A.mydoc")],
    ] {
      let start = ContinuousClock.now
      let result = try Shell.docpkg(
        arguments + ["--quiet"], environment: ["AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"])
      let elapsed = ContinuousClock.now - start
      #expect(result.status == 1, "\(arguments)")
      #expect(elapsed < .seconds(10), "\(arguments) took \(elapsed)")
      #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
      #expect(
        result.standardError.hasPrefix("docpkg: error: cannot connect to \(endpoint)"), "\(result.standardError)")
      #expect(result.standardError.contains(words), "\(result.standardError)")
    }
    #expect(!FileManager.default.fileExists(atPath: destination))
    #expect(!FileManager.default.fileExists(atPath: dir.appending(".C.mydoc.docpkg-sync")))
  }
}
