import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Interrupted transfers and damaged objects, against the real server: a cancelled push leaves the remote's head
/// as it was and the next push sends only what had not arrived; a blob whose bytes do not match its key is
/// refused before the package is touched.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncRecoveryTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  func makePackage(in dir: TemporaryDirectory, files: Int) async throws -> (S3Client, String, String) {
    let client = try await ObjectStore.freshBucket()
    for index in 0..<files { try dir.write("P.mydoc/f\(index).txt", "file number \(index)\n") }
    let url = "s3://\(client.bucket)/p"
    let package = dir.appending("P.mydoc")
    try await PackageSync.addRemote(
      Remote(name: "origin", url: url, endpoint: ObjectStore.endpointURL), toPackageAt: FilePath(package),
      credentials: credentials)
    return (client, url, package)
  }

  @Test func cancelledPushLeavesTheHeadAndTheNextPushSendsOnlyTheRest() async throws {
    let dir = try TemporaryDirectory("sync-cancel")
    let (client, _, package) = try await makePackage(in: dir, files: 200)
    let sync = try PackageSync(packageAt: FilePath(package), remote: "origin", credentials: credentials, parallelism: 2)
    let holder = TaskHolder<PackageSync.PushResult>()
    let task = Task {
      try await sync.push { progress in
        if progress.phase == .uploading, progress.objectsDone >= 20 { holder.cancel() }
      }
    }
    holder.set(task)
    let outcome = await task.result
    guard case .failure = outcome else {
      Issue.record("the push was not cancelled: \(outcome)")
      return
    }
    #expect(try await client.head("p/head") == nil)  // the head never moved
    let arrived = try await client.list(prefix: "p/blobs/").count
    #expect(arrived >= 20 && arrived < 200)

    let second = try await sync.push()
    guard case .pushed(_, let blobs, _, _) = second else {
      Issue.record("not pushed: \(second)")
      return
    }
    #expect(blobs == 200 - arrived)
  }

  @Test func aBlobThatDoesNotMatchItsKeyIsRefusedAndThePackageIsUntouched() async throws {
    let dir = try TemporaryDirectory("sync-verify")
    let (client, url, package) = try await makePackage(in: dir, files: 3)
    let sync = try PackageSync(packageAt: FilePath(package), remote: "origin", credentials: credentials)
    try await sync.push()
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    try dir.write("P.mydoc/f1.txt", "changed on A\n")
    try await sync.push()
    // Someone damages the new blob on the server.
    let changedHash = SHA256Hex.of(Data("changed on A\n".utf8))
    try await client.put("p/blobs/\(changedHash)", data: Data("damaged\n".utf8))

    let error = await #expect(throws: SyncError.self) {
      try await PackageSync(packageAt: FilePath(b), remote: "origin", credentials: credentials).pull()
    }
    #expect(error?.code == .corrupt)
    #expect(error?.key == "p/blobs/\(changedHash)")
    #expect(try String(contentsOfFile: b + "/f1.txt", encoding: .utf8) == "file number 1\n")
  }
}

/// A transfer's task, for its own progress callback to cancel (a push, an upload).
final class TaskHolder<Success: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var task: Task<Success, any Error>?
  private var cancelled = false

  func set(_ task: Task<Success, any Error>) {
    lock.withLock {
      self.task = task
      if cancelled { task.cancel() }
    }
  }

  func cancel() {
    lock.withLock {
      cancelled = true
      task?.cancel()
    }
  }
}
