import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// `docpkg sync --watch` and ``PackageSync/watch(options:)`` (issue 39): devices that keep syncing on their own,
/// against the real server.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncWatchTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  /// A bucket and a package `A.mydoc` with a text file, pushed to `endpoint` (default the store), and its clone
  /// `B.mydoc` (through the store itself).
  func setUp(_ label: String, endpoint: String = ObjectStore.endpointURL) async throws -> (
    TemporaryDirectory, a: String, b: String
  ) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(label)
    try dir.write("A.mydoc/Notes.txt", "one\ntwo\nthree\n")
    let url = "s3://\(client.bucket)/watch"
    try await PackageSync.addRemote(
      Remote(name: "origin", url: url, endpoint: endpoint), toPackageAt: FilePath(dir.appending("A.mydoc")),
      credentials: credentials)
    try await sync(dir.appending("A.mydoc")).push()
    try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(dir.appending("B.mydoc")), credentials: credentials)
    return (dir, dir.appending("A.mydoc"), dir.appending("B.mydoc"))
  }

  func sync(_ path: String, environment: [String: String] = ObjectStore.environment) throws -> PackageSync {
    try PackageSync(packageAt: FilePath(path), remote: "origin", credentials: credentials, environment: environment)
  }

  /// Saves `contents` at `entry` of the package at `path`, as any program's save.
  func save(_ path: String, _ entry: String, _ contents: String) throws {
    let file = try PackageFile(at: FilePath(path))
    defer { file.close() }
    _ = try file.root.setFile(at: entry, contents: Data(contents.utf8))
    try file.save()
  }

  func read(_ package: String, _ entry: String) -> String? {
    try? String(contentsOfFile: package + "/" + entry, encoding: .utf8)
  }

  static var quickPolls: PackageSync.WatchOptions {
    var options = PackageSync.WatchOptions()
    options.pollInterval = .milliseconds(100)
    options.debounce = .milliseconds(20)
    return options
  }

  @Test func editsOnEachDeviceArriveOnTheOther() async throws {
    let (dir, a, b) = try await setUp("watch-two")
    defer { withExtendedLifetime(dir) {} }
    let watchA = WatchLog(try sync(a).watch(options: Self.quickPolls))
    let watchB = WatchLog(try sync(b).watch(options: Self.quickPolls))
    defer {
      watchA.stop()
      watchB.stop()
    }
    try save(a, "FromA.txt", "written on A\n")
    #expect(await eventually(seconds: 30) { read(b, "FromA.txt") == "written on A\n" })
    try save(b, "Notes.txt", "one\ntwo on B\nthree\n")
    #expect(await eventually(seconds: 30) { read(a, "Notes.txt") == "one\ntwo on B\nthree\n" })
    try save(a, "FromA.txt", "written on A, twice\n")
    #expect(await eventually(seconds: 30) { read(b, "FromA.txt") == "written on A, twice\n" })
    // Each watcher said what its syncs did: A pushed and pulled, B pulled and pushed; none failed.
    #expect(await eventually { watchA.pushes >= 2 && watchA.pulls >= 1 && watchB.pushes >= 1 && watchB.pulls >= 2 })
    #expect(watchA.error == nil && watchB.error == nil)
  }

  @Test func aSameLineEditBecomesAConflictTheWatcherReports() async throws {
    let (dir, a, b) = try await setUp("watch-conflict")
    defer { withExtendedLifetime(dir) {} }
    // B changes a line while not watching; A changes the same line and its watcher pushes it.
    try save(b, "Notes.txt", "one\ntwo on B\nthree\n")
    let watchA = WatchLog(try sync(a).watch(options: Self.quickPolls))
    defer { watchA.stop() }
    try save(a, "Notes.txt", "one\ntwo on A\nthree\n")
    #expect(await eventually(seconds: 30) { watchA.pushes >= 1 })
    // B's watcher syncs at start: the pull keeps B's side as a conflict version and says so.
    let watchB = WatchLog(try sync(b).watch(options: Self.quickPolls))
    defer { watchB.stop() }
    #expect(await eventually(seconds: 30) { !watchB.conflicts.isEmpty })
    #expect(watchB.conflicts.first?.paths == ["Notes.txt"])
    #expect(read(b, "Notes.txt") == "one\ntwo on A\nthree\n")
    let kept = try VersionStore(forPackageAt: FilePath(b)).unresolvedConflicts()
    #expect(kept.map(\.id) == watchB.conflicts.map(\.version))
  }

  @Test func survivesTheNetworkGoingAwayAndComingBack() async throws {
    let serverDir = try TemporaryDirectory("watch-network-server")
    let network = try await MisbehavingServer(.forward, in: serverDir)
    let (dir, a, b) = try await setUp("watch-network", endpoint: network.endpoint)
    defer { withExtendedLifetime((dir, serverDir, network)) {} }
    // No retries of single requests: the watch's own backoff is what keeps trying.
    var environment = ObjectStore.environment
    environment["DOCPKG_SYNC_RETRIES"] = "0"
    let watchA = WatchLog(try sync(a, environment: environment).watch(options: Self.quickPolls))
    defer { watchA.stop() }
    try save(a, "Before.txt", "before the cut\n")
    #expect(await eventually(seconds: 30) { watchA.pushes >= 1 })

    network.cut = true
    try save(a, "During.txt", "saved while the network was gone\n")
    #expect(await eventually(seconds: 30) { watchA.unreachable >= 1 })
    try save(b, "FromB.txt", "pushed by B meanwhile\n")
    try await sync(b).sync()
    // Trying again, with backoff, and saying so once.
    #expect(await eventually(seconds: 30) { network.requests.filter { $0 == "cut" }.count >= 4 })
    #expect(watchA.unreachable == 1 && watchA.reachable == 0)

    network.cut = false
    #expect(await eventually(seconds: 30) { watchA.reachable == 1 })
    #expect(await eventually(seconds: 30) { read(a, "FromB.txt") == "pushed by B meanwhile\n" })
    try await sync(b).sync()
    #expect(read(b, "During.txt") == "saved while the network was gone\n")
    #expect(watchA.unreachable == 1 && watchA.reachable == 1)
    #expect(watchA.error == nil)
  }

  @Test func cancellingEndsTheWatchPromptly() async throws {
    let (dir, a, _) = try await setUp("watch-cancel")
    defer { withExtendedLifetime(dir) {} }
    let watch = WatchLog(try sync(a).watch(options: Self.quickPolls))
    try save(a, "More.txt", "more\n")
    #expect(await eventually(seconds: 30) { watch.pushes >= 1 })
    let start = ContinuousClock.now
    watch.stop()
    #expect(await eventually(seconds: 5) { watch.ended })
    #expect(ContinuousClock.now - start < .seconds(2))
    #expect(watch.error == nil)
  }

  @Test func aDocumentSyncsItselfAfterEachSave() async throws {
    let (dir, a, b) = try await setUp("watch-document")
    defer { withExtendedLifetime(dir) {} }
    let document = try await Document(contentsOf: FilePath(a))
    let syncA = try sync(a)
    // Asked: saves the unsaved edit, then pushes it.
    try await document.edit { _ = try $0.setFile(at: "Asked.txt", contents: Data("synced when asked\n".utf8)) }
    let asked = try await document.sync(with: syncA)
    #expect(asked.pushed != .upToDate)
    try await sync(b).sync()
    #expect(read(b, "Asked.txt") == "synced when asked\n")

    // After each save: a save pushes, another device's push shows in the document.
    let watch = WatchLog(document.syncAfterSaves(with: syncA, options: Self.quickPolls))
    defer { watch.stop() }
    try await document.edit { _ = try $0.setFile(at: "Saved.txt", contents: Data("synced after the save\n".utf8)) }
    try await document.save()
    #expect(await eventually(seconds: 30) { watch.pushes >= 1 })
    try await sync(b).sync()
    #expect(read(b, "Saved.txt") == "synced after the save\n")
    try save(b, "FromB.txt", "from B\n")
    try await sync(b).sync()
    #expect(
      await eventually(seconds: 30) {
        (try? await document.read { try $0.node(at: "FromB.txt").contents() }) == Data("from B\n".utf8)
      })
    try await document.close()
  }

  @Test func theCommandSyncsUntilInterrupted() async throws {
    let (dir, a, b) = try await setUp("watch-command")
    defer { withExtendedLifetime(dir) {} }
    let watcher = try RunningProcess(Shell.docpkgPath, ["sync", "--watch", a, "--poll-interval", "100"])
    defer { watcher.stop() }
    #expect(await watcher.wait(seconds: 30) { $0.standardError.contains("watching") })
    try save(a, "FromA.txt", "from A\n")
    #expect(await watcher.wait(seconds: 30) { $0.standardOutput.contains("synced: nothing to pull; pushed 1 blobs") })
    try save(b, "FromB.txt", "from B\n")
    try await sync(b).sync()
    #expect(await watcher.wait(seconds: 30) { $0.standardOutput.contains("synced: fast-forward; nothing to push") })
    #expect(read(a, "FromB.txt") == "from B\n")
    // A same-line edit: the conflict is said as it appears.
    try save(b, "Notes.txt", "one\ntwo on B\nthree\n")
    try save(a, "Notes.txt", "one\ntwo on A\nthree\n")
    try await sync(b).sync()
    #expect(await watcher.wait(seconds: 30) { $0.standardOutput.contains(" Notes.txt\n") })
    #expect(watcher.standardOutput.split(separator: "\n").contains { $0.hasPrefix("conflict ") })
    watcher.stop()
    #expect(await watcher.waitForExit())
    #expect(watcher.status == 0, "\(watcher.standardError)")
    #expect(watcher.standardError.hasSuffix("docpkg: stopped watching\n"))
  }
}

/// What a watch reported, collected by a task of its own until stopped.
final class WatchLog: @unchecked Sendable {
  private let lock = NSLock()
  private var events: [PackageSync.WatchEvent] = []
  private var ending: (any Error)?
  private var done = false
  private var task: Task<Void, Never>?

  init(_ stream: AsyncThrowingStream<PackageSync.WatchEvent, any Error>) {
    task = Task { [self] in
      do {
        for try await event in stream { lock.withLock { events.append(event) } }
      } catch { lock.withLock { ending = error } }
      lock.withLock { done = true }
    }
  }

  /// Cancels the watching task.
  func stop() { task?.cancel() }

  var ended: Bool { lock.withLock { done } }
  var error: (any Error)? { lock.withLock { ending } }
  private var results: [PackageSync.SyncResult] {
    lock.withLock {
      events.compactMap {
        guard case .synced(let result) = $0 else { return nil }
        return result
      }
    }
  }
  var pushes: Int { results.filter { $0.pushed != .upToDate }.count }
  var pulls: Int { results.filter { $0.pulls.contains { $0 != .upToDate && $0 != .remoteEmpty } }.count }
  var conflicts: [(version: Int, paths: [String])] {
    lock.withLock {
      events.compactMap {
        guard case .conflict(let version, let paths) = $0 else { return nil }
        return (version, paths)
      }
    }
  }
  var unreachable: Int {
    lock.withLock {
      events.filter {
        guard case .unreachable = $0 else { return false }
        return true
      }
      .count
    }
  }
  var reachable: Int {
    lock.withLock {
      events.filter {
        guard case .reachable = $0 else { return false }
        return true
      }
      .count
    }
  }
}
