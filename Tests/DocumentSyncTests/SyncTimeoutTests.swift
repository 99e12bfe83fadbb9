import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// A server that accepts and never answers, stalls mid-answer, answers a bare 404 or keeps saying 503 (issue 39):
/// each command fails in one line naming the endpoint and what fired, within the timeouts set (short ones here, through
/// the environment as a user would set them, or the library's `SyncTimeouts`). No object store needed.
@Suite struct SyncTimeoutTests {
  static let credentials = ["AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"]

  /// A package A.mydoc whose remote `origin` is at `endpoint` (its ETag form known: adding it asks nothing).
  func package(in dir: TemporaryDirectory, endpoint: String) throws -> String {
    try dir.write("A.mydoc/a.txt", "a\n")
    let path = dir.appending("A.mydoc")
    try SyncFolder(packagePath: FilePath(path)).add(
      Remote(name: "origin", url: "s3://bucket/p", endpoint: endpoint, etagForm: .quoted))
    return path
  }

  /// Runs `docpkg arguments --quiet` with `environment`; expects a failure in one line containing `words` within
  /// `seconds`.
  func expectFailure(
    _ arguments: [String], environment: [String: String], saying words: String, within seconds: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let start = ContinuousClock.now
    let result = try Shell.docpkg(arguments + ["--quiet"], environment: Self.credentials.merging(environment) { $1 })
    let elapsed = ContinuousClock.now - start
    #expect(result.status == 1, "\(arguments): \(result.standardOutput)", sourceLocation: sourceLocation)
    #expect(elapsed < .seconds(seconds), "\(arguments) took \(elapsed)", sourceLocation: sourceLocation)
    #expect(
      result.standardError.split(separator: "\n").count == 1, "\(result.standardError)", sourceLocation: sourceLocation)
    #expect(
      result.standardError.contains(words), "\(arguments): \(result.standardError)", sourceLocation: sourceLocation)
  }

  @Test func aSilentServerFailsClonePullAndPushOnTheFirstByteTimeout() async throws {
    let dir = try TemporaryDirectory("timeout-silent")
    let server = try await MisbehavingServer(.silent, in: dir)
    let a = try package(in: dir, endpoint: server.endpoint)
    let environment = [SyncTimeouts.firstByteVariable: "1"]
    let words = "no answer from \(server.endpoint) within 1 s (the first-byte timeout, DOCPKG_SYNC_FIRST_BYTE_TIMEOUT)"
    // Each request is sent twice (a timeout is retried once): 2 × 1 s + 0.5 s.
    try expectFailure(
      ["clone", "s3://bucket/p", dir.appending("C.mydoc"), "--endpoint", server.endpoint], environment: environment,
      saying: words, within: 10)
    try expectFailure(["pull", a], environment: environment, saying: words, within: 10)
    try expectFailure(["push", a], environment: environment, saying: words, within: 10)
    #expect(server.requests.count == 6, "\(server.requests)")
    #expect(!FileManager.default.fileExists(atPath: dir.appending("C.mydoc")))
  }

  @Test func theDefaultsFailASilentServerWithinAMinute() {
    // The first attempt and its one retry each wait the first-byte timeout, with the first retry delay between.
    let defaults = SyncTimeouts()
    let worst = defaults.firstByte * 2 + RetryPolicy(retries: 1).totalDelay
    #expect(worst <= .seconds(60), "\(worst)")
    #expect(defaults.total == nil)
    let set = SyncTimeouts(environment: [
      SyncTimeouts.firstByteVariable: "2.5", SyncTimeouts.idleReadVariable: "3", SyncTimeouts.totalVariable: "90",
    ])
    #expect(set == SyncTimeouts(firstByte: .milliseconds(2500), idleRead: .seconds(3), total: .seconds(90)))
    #expect(SyncTimeouts(environment: [SyncTimeouts.firstByteVariable: "soon"]) == defaults)
  }

  @Test func anAnswerThatStallsFailsOnTheIdleReadTimeout() async throws {
    let dir = try TemporaryDirectory("timeout-stall")
    let server = try await MisbehavingServer(.stall, in: dir)
    let client = S3Client(
      endpoint: try S3Endpoint(url: server.endpoint), bucket: "bucket",
      credentials: S3Credentials(accessKeyID: "test", secretAccessKey: "test"),
      timeouts: SyncTimeouts(firstByte: .seconds(30), idleRead: .seconds(1)), retryPolicy: RetryPolicy(retries: 0))
    // In this process the time taken says little (tests blocking the cooperative pool delay the resumption): what
    // fired is in the message.
    let error = await #expect(throws: SyncError.self) { try await client.get("p/head") }
    #expect(error?.code == .timeout)
    #expect(
      error?.description.contains(
        "the answer from \(server.endpoint) stopped for 1 s (the idle-read timeout, DOCPKG_SYNC_IDLE_TIMEOUT)") == true,
      "\(String(describing: error))")
    // A download that got 3 bytes keeps them for the next attempt; one that got none leaves no file.
    let partial = FilePath(dir.appending("partial"))
    await #expect(throws: SyncError.self) { try await client.download("p/blob", toFile: partial) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: partial.string)) == Data("abc".utf8))
    // Through docpkg, set in the environment, and timed.
    try expectFailure(
      ["clone", "s3://bucket/p", dir.appending("C.mydoc"), "--endpoint", server.endpoint],
      environment: [SyncTimeouts.idleReadVariable: "1"],
      saying: "the answer from \(server.endpoint) stopped for 1 s (the idle-read timeout, DOCPKG_SYNC_IDLE_TIMEOUT)",
      within: 20)
  }

  @Test func theTotalDeadlineStopsAnOperation() async throws {
    let dir = try TemporaryDirectory("timeout-total")
    let server = try await MisbehavingServer(.silent, in: dir)
    let a = try package(in: dir, endpoint: server.endpoint)
    let sync = try PackageSync(
      packageAt: FilePath(a), remote: "origin",
      credentials: S3Credentials(accessKeyID: "test", secretAccessKey: "test"),
      environment: [:], timeouts: SyncTimeouts(firstByte: .seconds(120), total: .milliseconds(500)))
    // The deadline fired, not the first-byte timeout (the message says which; in this process the time taken says
    // little: tests blocking the cooperative pool delay the resumption). `docpkg` below is timed.
    let error = await #expect(throws: SyncError.self) { try await sync.pull() }
    #expect(error?.code == .timeout)
    #expect(
      error?.description.hasPrefix("pull did not finish within 0.5 s (the total deadline, DOCPKG_SYNC_DEADLINE)")
        == true, "\(String(describing: error))")
    // Through docpkg, set in the environment.
    try expectFailure(
      ["push", a], environment: [SyncTimeouts.firstByteVariable: "120", SyncTimeouts.totalVariable: "1"],
      saying: "push did not finish within 1 s (the total deadline, DOCPKG_SYNC_DEADLINE)", within: 20)
  }

  @Test(arguments: [0, 2]) func theRetryCountIsTheEnvironments(retries: Int) async throws {
    let dir = try TemporaryDirectory("timeout-retries")
    let server = try await MisbehavingServer(.busy, in: dir)
    let a = try package(in: dir, endpoint: server.endpoint)
    try expectFailure(
      ["pull", a], environment: ["DOCPKG_SYNC_RETRIES": String(retries)], saying: "503 SlowDown", within: 10)
    #expect(server.requests.count == retries + 1, "\(server.requests)")
  }

  @Test func aBare404IsNotADeletedHead() async throws {
    let dir = try TemporaryDirectory("timeout-404")
    let server = try await MisbehavingServer(.bare404, in: dir)
    let a = try package(in: dir, endpoint: server.endpoint)
    // As if the package had synced with the remote before: a missing head would be "deleted on the server?".
    try dir.write(
      ".A.mydoc.docpkg-sync/state/origin", String(repeating: "ab", count: 32) + "\netag\nformat 2\nconflicts\n")
    let words = "\(server.endpoint) answered 404 without an S3 error (not an S3 server, or a wrong endpoint?)"
    try expectFailure(["pull", a], environment: [:], saying: words, within: 10)
    try expectFailure(["push", a], environment: [:], saying: words, within: 10)
    try expectFailure(
      ["clone", "s3://bucket/p", dir.appending("C.mydoc"), "--endpoint", server.endpoint], environment: [:],
      saying: words, within: 10)
  }
}
