import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// `remote prune` against the real server (issue 26): the bucket keeps exactly what the retained states reach, and
/// a push racing the prune from another process loses nothing.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncPruneTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  /// A package A.mydoc with `fixed.txt` and `counter.txt`, pushed `count` times (`counter.txt` is "push N\n"), to a
  /// remote whose pushes do not prune by themselves unless `autoPrune` (keeping `keepStates`, nil: the default).
  func pushed(
    _ count: Int, label: String, autoPrune: Bool = false, keepStates: Int? = nil
  ) async throws -> (TemporaryDirectory, S3Client, String, PackageSync) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(label)
    try dir.write("A.mydoc/fixed.txt", "fixed\n")
    try dir.write("A.mydoc/counter.txt", "push 0\n")
    let url = "s3://\(client.bucket)/p"
    let package = FilePath(dir.appending("A.mydoc"))
    var remote = Remote(name: "origin", url: url, endpoint: ObjectStore.endpointURL)
    remote.autoPrune = autoPrune
    remote.keepStates = keepStates
    try await PackageSync.addRemote(remote, toPackageAt: package, credentials: credentials)
    let sync = try PackageSync(packageAt: package, remote: "origin", credentials: credentials)
    for number in 1...count {
      try dir.write("A.mydoc/counter.txt", "push \(number)\n")
      try await sync.push()
    }
    return (dir, client, url, sync)
  }

  func keys(_ client: S3Client, _ prefix: String) async throws -> Set<String> {
    Set(try await client.list(prefix: prefix).map(\.key))
  }

  @Test func afterAHundredPushesPruneKeepsExactlyWhatTheLastStatesReach() async throws {
    let (dir, client, url, sync) = try await pushed(100, label: "prune-count")
    #expect(try await keys(client, "p/blobs/").count == 101)
    #expect(try await keys(client, "p/trees/").count == 100)
    #expect(try await keys(client, "p/states/").count == 100)

    let result = try await sync.prune(keepingStates: 5)
    #expect(result.keptStates == 5)
    #expect(result.removedObjects == 95 + 95 + 95)  // blobs, trees, history entries

    // The last five states are one tree each, with fixed.txt (one blob for all) and their own counter.txt.
    let blobs = Set(
      (["fixed\n"] + (96...100).map { "push \($0)\n" }).map { "p/blobs/" + SHA256Hex.of(Data($0.utf8)) })
    #expect(try await keys(client, "p/blobs/") == blobs)
    #expect(try await keys(client, "p/trees/").count == 5)
    #expect(try await keys(client, "p/states/").count == 5)
    #expect(try await keys(client, "p/").count == 6 + 5 + 5 + 1)  // and the head; no lock left behind
    #expect(result.keptObjects == 11)
    // The sync folder's tree cache keeps the same five trees.
    let cache = dir.appending(".A.mydoc.docpkg-sync/trees")
    let cached = try FileManager.default.subpathsOfDirectory(atPath: cache).filter { $0.count > 3 }
    #expect(cached.count == 5)

    // The remote still clones, at its head.
    let copy = dir.appending("Copy.mydoc")
    try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials)
    #expect(try String(contentsOfFile: copy + "/counter.txt", encoding: .utf8) == "push 100\n")
  }

  @Test func aPushRacingThePruneFromAnotherProcessLosesNothing() async throws {
    let (dir, client, url, _) = try await pushed(30, label: "prune-race")
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)

    let prune = try RunningProcess(Shell.docpkgPath, ["remote", "prune", dir.appending("A.mydoc"), "--keep", "2"])
    var pushes: [Shell.Output] = []
    for number in 1...5 {
      try dir.write("B.mydoc/counter.txt", "from B \(number)\n")
      try dir.write("B.mydoc/b\(number).txt", "b \(number)\n")
      pushes.append(try Shell.docpkg(["push", b]))
    }
    #expect(await prune.waitForExit(seconds: 60))
    #expect(prune.status == 0, "\(prune.standardError)")
    #expect(prune.standardOutput.hasPrefix("kept 2 states"), "\(prune.standardOutput)")
    for push in pushes { #expect(push.status == 0, "\(push.standardError)") }

    // Nothing B pushed is missing: the head's state is whole on the remote, and a fresh clone is B.
    let sync = try PackageSync(packageAt: FilePath(b), remote: "origin", credentials: credentials)
    let head = try #require(try await sync.head())
    #expect(try await sync.firstMissingObject(of: head.head) == nil)
    let copy = dir.appending("Copy.mydoc")
    try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials)
    #expect(try String(contentsOfFile: copy + "/counter.txt", encoding: .utf8) == "from B 5\n")
    for number in 1...5 {
      #expect(try String(contentsOfFile: copy + "/b\(number).txt", encoding: .utf8) == "b \(number)\n")
    }
    #expect(try await client.list(prefix: "p/locks/").isEmpty)
  }

  @Test func pushesKeepTheBucketBoundedWithoutARemotePrune() async throws {
    // N = 2: a push that finds more than 4 states prunes to 2, so after pushes 5, 8 and 11 the history holds
    // 2 states, and 3 after the 12th.
    let (dir, client, _, sync) = try await pushed(12, label: "prune-auto", autoPrune: true, keepStates: 2)
    #expect(try await keys(client, "p/states/").count == 3)
    #expect(try await keys(client, "p/trees/").count == 3)
    let blobs = Set((["fixed\n"] + (10...12).map { "push \($0)\n" }).map { "p/blobs/" + SHA256Hex.of(Data($0.utf8)) })
    #expect(try await keys(client, "p/blobs/") == blobs)
    #expect(try await client.list(prefix: "p/locks/").isEmpty)

    // Turned off (`docpkg remote set --auto-prune off`), the history grows again.
    let set = try Shell.docpkg(["remote", "set", dir.appending("A.mydoc"), "--auto-prune", "off"])
    #expect(set.standardOutput == "keep 2 states, automatic prune off\n", "\(set.standardError)")
    for number in 13...15 {
      try dir.write("A.mydoc/counter.txt", "push \(number)\n")
      let push = try Shell.docpkg(["push", dir.appending("A.mydoc")])
      #expect(push.standardOutput.hasPrefix("pushed 1 blobs"), "\(push.standardError)")
    }
    #expect(try await keys(client, "p/states/").count == 6)
    _ = sync
  }

  @Test func aPushWhileAnotherDeviceHoldsTheRemoteLockSkipsItsPruneAndSucceeds() async throws {
    // N = 1: the third push finds 3 states, more than 2.
    let (dir, client, _, _) = try await pushed(2, label: "prune-auto-busy", autoPrune: true, keepStates: 1)
    #expect(try await keys(client, "p/states/").count == 2)
    // Another device's push is running: its lock is there, fresh.
    let lock = "p/locks/push-" + UUID().uuidString.lowercased()
    _ = try await client.put(lock, data: RemoteLock(kind: .push, date: Date()).encoded())
    let package = dir.appending("A.mydoc")
    try dir.write("A.mydoc/counter.txt", "push 3\n")
    let push = try Shell.docpkg(["push", package])
    #expect(push.status == 0)
    #expect(push.standardOutput.hasPrefix("pushed 1 blobs"))
    let lines = push.standardError.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].hasPrefix("docpkg: the automatic prune was skipped (the push succeeded):"))
    #expect(lines.first?.contains("the remote is busy") == true, "\(push.standardError)")
    #expect(try await keys(client, "p/states/").count == 3)

    // Once the other push is done, the next push prunes: N states, and what they reach.
    try await client.delete(lock)
    try dir.write("A.mydoc/counter.txt", "push 4\n")
    let next = try Shell.docpkg(["push", package])
    #expect(next.status == 0 && next.standardError.isEmpty, "\(next.standardError)")
    #expect(next.standardOutput.hasSuffix("pruned: kept 1 states (3 objects), removed 9 objects\n"))
    #expect(try await keys(client, "p/states/").count == 1)
    #expect(try await keys(client, "p/blobs/").count == 2)
    #expect(try await keys(client, "p/trees/").count == 1)
  }

  @Test func objectsAPushSentBeforeLosingTheRaceAreSentAgainWhenAPruneDeletedThem() async throws {
    let (dir, client, url, _) = try await pushed(1, label: "prune-journal")
    let a = dir.appending("A.mydoc")
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    // A's push sends its new blob, then B pushes first: A's head write loses the race, its journal keeps the blob.
    try dir.write("A.mydoc/a.txt", "from A\n")
    try dir.write("B.mydoc/b.txt", "from B\n")
    let sync = try PackageSync(packageAt: FilePath(a), remote: "origin", credentials: credentials)
    let bPushed = Locked(false)
    let error = await #expect(throws: SyncError.self) {
      try await sync.push { progress in
        guard progress.phase == .updatingHead, !bPushed.value else { return }
        bPushed.value = true
        _ = try? Shell.docpkg(["push", b])
      }
    }
    #expect(error?.code == .preconditionFailed)
    let blob = "p/blobs/" + SHA256Hex.of(Data("from A\n".utf8))
    #expect(try await client.head(blob) != nil)
    // A prune from B deletes it: no state names it.
    let prune = try Shell.docpkg(["remote", "prune", b, "--keep", "1"])
    #expect(prune.status == 0, "\(prune.standardError)")
    #expect(try await client.head(blob) == nil)

    // A pulls and pushes again: the blob goes up again (the journal's word is checked), and the head is whole.
    guard case .merged = try await sync.pull() else {
      Issue.record("A's pull did not merge")
      return
    }
    guard case .pushed = try await sync.push() else {
      Issue.record("A's second push")
      return
    }
    let head = try #require(try await sync.head())
    #expect(try await sync.firstMissingObject(of: head.head) == nil)
    #expect(try await client.head(blob) != nil)
  }
}

/// A value shared with a `Sendable` callback.
final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

extension SyncPruneTests {
  /// A pull whose line-wise text merge needs a base state a prune removed keeps its side as a conflict version
  /// (it failed, naming the head as damaged).
  @Test func aTextMergeWhoseBaseWasPrunedIsAConflictVersionNotAFailure() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("prune-base")
    try dir.write("A.mydoc/notes.txt", "one\ntwo\nthree\n")
    let (a, b) = (dir.appending("A.mydoc"), dir.appending("B.mydoc"))
    let url = "s3://\(client.bucket)/p"
    func docpkg(_ arguments: [String]) throws -> String {
      let result = try Shell.docpkg(arguments)
      #expect(result.status == 0, "\(arguments): \(result.standardError)")
      return result.standardOutput
    }
    _ = try docpkg(["remote", "add", a, "origin", url, "--endpoint", ObjectStore.endpointURL])
    _ = try docpkg(["push", a])
    _ = try docpkg(["clone", url, b, "--endpoint", ObjectStore.endpointURL])
    // A changes the first line and pushes on; a prune keeping one state removes B's base of notes.txt.
    try dir.write("A.mydoc/notes.txt", "ONE\ntwo\nthree\n")
    _ = try docpkg(["push", a])
    try dir.write("A.mydoc/other.txt", "other\n")
    _ = try docpkg(["push", a])
    #expect(try docpkg(["remote", "prune", a, "--keep", "1"]).hasPrefix("kept 1 states"))
    // B changes the last line: a line-wise merge would need the pruned base; B's side becomes a conflict version.
    try dir.write("B.mydoc/notes.txt", "one\ntwo\nTHREE\n")
    let pulled = try docpkg(["pull", b])
    #expect(pulled.hasPrefix("conflict 1 notes.txt"), "\(pulled)")
    #expect(try String(contentsOfFile: b + "/notes.txt", encoding: .utf8) == "ONE\ntwo\nthree\n")
    #expect(try docpkg(["versions", "show", b, "1", "notes.txt"]) == "one\ntwo\nTHREE\n")
  }
}
