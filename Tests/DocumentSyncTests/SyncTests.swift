import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// push / clone / pull against the real server: round trips, two devices pushing at once, pulls with local changes.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  /// A bucket, a folder, and a package `A.mydoc` in it with a few files, its remote `origin` added.
  func setUp(_ label: String) async throws -> (TemporaryDirectory, String, String) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(label)
    try dir.write("A.mydoc/Index.json", "{\"pages\":2}\n")
    try dir.write("A.mydoc/Pages/one.txt", "first page\n")
    try dir.write("A.mydoc/Pages/two.txt", "second page\n")
    try dir.write("A.mydoc/Data/same1.bin", "shared bytes")
    try dir.write("A.mydoc/Data/same2.bin", "shared bytes")
    try FileManager.default.createDirectory(atPath: dir.appending("A.mydoc/Empty"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: dir.appending("A.mydoc/link"), withDestinationPath: "Index.json")
    let url = "s3://\(client.bucket)/docs/a"
    try await PackageSync.addRemote(
      Remote(name: "origin", url: url, endpoint: ObjectStore.endpointURL),
      toPackageAt: FilePath(dir.appending("A.mydoc")),
      credentials: credentials)
    return (dir, url, dir.appending("A.mydoc"))
  }

  func sync(_ path: String) throws -> PackageSync {
    try PackageSync(packageAt: FilePath(path), remote: "origin", credentials: credentials)
  }

  func read(_ package: String, _ entry: String) throws -> String {
    try String(contentsOfFile: package + "/" + entry, encoding: .utf8)
  }

  @Test func pushCloneAndPullRoundTrip() async throws {
    let (dir, url, a) = try await setUp("sync-roundtrip")
    let remote = try SyncFolder(packagePath: FilePath(a)).remote("origin")
    #expect(remote.etagForm == .unquoted)  // found at `remote add`: this server wants bare ETags

    let first = try await sync(a).push()
    guard case .pushed(_, let blobs, let trees, _) = first else {
      Issue.record("not pushed: \(first)")
      return
    }
    #expect(blobs == 4)  // same1.bin and same2.bin are one blob
    #expect(trees == 4)  // root, Pages, Data, Empty
    #expect(try await sync(a).push() == .upToDate)

    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    #expect(try read(b, "Pages/two.txt") == "second page\n")
    #expect(try read(b, "Data/same2.bin") == "shared bytes")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: b + "/link") == "Index.json")
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: b + "/Empty", isDirectory: &isDirectory) && isDirectory.boolValue)

    // B edits and pushes; A, unchanged since its push, fast-forwards.
    let file = try PackageFile(at: FilePath(b))
    try file.root.setFile(at: "Pages/three.txt", contents: Data("third page\n".utf8))
    _ = try file.root.removeNode(at: "Pages/one.txt")
    try file.save()
    file.close()
    guard case .pushed(_, 1, 2, _) = try await sync(b).push() else {
      Issue.record("B's push")
      return
    }
    #expect(try await sync(a).pull() == .fastForwarded)
    #expect(try read(a, "Pages/three.txt") == "third page\n")
    #expect(!FileManager.default.fileExists(atPath: a + "/Pages/one.txt"))
    #expect(try await sync(a).pull() == .upToDate)
    #expect(try await sync(a).push() == .upToDate)
  }

  @Test func concurrentPushesOneWinsTheOtherIsToldToPull() async throws {
    let (dir, url, a) = try await setUp("sync-race")
    try await sync(a).push()
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    try dir.write("A.mydoc/from-a.txt", "a\n")
    try dir.write("B.mydoc/from-b.txt", "b\n")
    async let pushA = Result { try await sync(a).push() }
    async let pushB = Result { try await sync(b).push() }
    let results = await [pushA, pushB]
    let winners = results.filter { if case .success = $0 { true } else { false } }
    #expect(winners.count == 1)
    for case .failure(let error) in results {
      let syncError = try #require(error as? SyncError)
      #expect(syncError.code == .preconditionFailed || syncError.code == .remote)
      #expect(syncError.description.contains("pull"))
    }
    // The loser pulls (a disjoint merge), pushes; then both have both files.
    let loser = results[0].isSuccess ? b : a
    let winner = loser == a ? b : a
    guard case .merged = try await sync(loser).pull() else {
      Issue.record("loser's pull did not merge")
      return
    }
    try await sync(loser).push()
    #expect(try await sync(winner).pull() == .fastForwarded)
    for package in [a, b] {
      #expect(try read(package, "from-a.txt") == "a\n")
      #expect(try read(package, "from-b.txt") == "b\n")
    }
  }

  @Test func pullWithOverlappingChangesKeepsAConflictVersion() async throws {
    let (dir, url, a) = try await setUp("sync-conflict")
    try await sync(a).push()
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    try dir.write("B.mydoc/Pages/one.txt", "B's first page\n")
    try dir.write("B.mydoc/b-only.txt", "b\n")
    try await sync(b).push()
    try dir.write("A.mydoc/Pages/one.txt", "A's first page\n")
    try dir.write("A.mydoc/a-only.txt", "a\n")

    let result = try await sync(a).pull()
    guard case .conflict(let version, let paths) = result else {
      Issue.record("not a conflict: \(result)")
      return
    }
    #expect(paths == ["Pages/one.txt"])
    #expect(try read(a, "Pages/one.txt") == "B's first page\n")
    #expect(try read(a, "b-only.txt") == "b\n")
    #expect(try read(a, "a-only.txt") == "a\n")
    // A's side is the unresolved conflict version: nothing is lost.
    let store = try VersionStore(forPackageAt: FilePath(a))
    let kept = try store.version(version)
    #expect(!kept.isResolved)
    #expect(kept.conflictPaths == ["Pages/one.txt"])
    let old = try store.tree(of: version)
    #expect(try old.node(at: "Pages/one.txt").contents() == Data("A's first page\n".utf8))
    // A pushes the merged state; B, unchanged since its push, fast-forwards to it.
    guard case .pushed = try await sync(a).push() else {
      Issue.record("A's push after the pull")
      return
    }
    #expect(try await sync(b).pull() == .fastForwarded)
    #expect(try read(b, "a-only.txt") == "a\n")
    #expect(try read(b, "Pages/one.txt") == "B's first page\n")
  }

  @Test func cloneOfAnEmptyRemoteSaysSo() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("sync-empty")
    let error = await #expect(throws: SyncError.self) {
      try await PackageSync.clone(
        from: "s3://\(client.bucket)/nothing", endpoint: ObjectStore.endpointURL,
        to: FilePath(dir.appending("X.mydoc")), credentials: credentials)
    }
    #expect(error?.code == .remote)
    #expect(!FileManager.default.fileExists(atPath: dir.appending("X.mydoc")))
  }
}

extension Result {
  /// Runs `body` and keeps its result or error.
  init(catching body: () async throws -> Success) async where Failure == any Error {
    do { self = .success(try await body()) } catch { self = .failure(error) }
  }

  var isSuccess: Bool { if case .success = self { true } else { false } }
}
