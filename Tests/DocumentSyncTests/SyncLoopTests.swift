import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// `docpkg sync` (issue 39): pull, merge and push until it lands. Six devices syncing at once, through `docpkg`
/// against the real server, end with every edit of every device, none lost and none overwritten.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncLoopTests {
  func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

  /// Runs `body` for each of `count` devices at once, each on a thread of its own (a `docpkg` run blocks it).
  func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let group = DispatchGroup()
      for device in 0..<count {
        group.enter()
        Thread {
          body(device)
          group.leave()
        }.start()
      }
      group.notify(queue: .global()) { done.resume() }
    }
  }

  @Test func sixDevicesSyncingAtOnceLoseNoEdit() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("sync-loop")
    try dir.write("D0.mydoc/start.txt", "start\n")
    let url = "s3://\(client.bucket)/loop"
    let devices = (0..<6).map { dir.appending("D\($0).mydoc") }
    #expect(
      try Shell.docpkg(["remote", "add", devices[0], "origin", url, "--endpoint", ObjectStore.endpointURL]).status == 0)
    #expect(try Shell.docpkg(["sync", devices[0]]).standardOutput.hasPrefix("synced: nothing to pull; pushed "))
    for device in devices.dropFirst() {
      #expect(try Shell.docpkg(["clone", url, device, "--endpoint", ObjectStore.endpointURL]).status == 0)
    }

    // 4 rounds here; DOCPKG_SYNC_ROUNDS=8 is the figure. Each round, each device adds a file and rewrites
    // its own: two edits.
    let rounds = ObjectStore.environment["DOCPKG_SYNC_ROUNDS"].flatMap { Int($0) }.map { min($0, 8) } ?? 4
    let failures = Counter()
    let extraRounds = Counter()
    await onThreads(devices.count) { index in
      let device = devices[index]
      for round in 0..<rounds {
        try? Data("D\(index) round \(round)\n".utf8).write(to: URL(fileURLWithPath: "\(device)/D\(index)-\(round).txt"))
        try? Data("D\(index) at round \(round)\n".utf8).write(to: URL(fileURLWithPath: "\(device)/D\(index).txt"))
        guard let result = try? Shell.docpkg(["sync", device, "--quiet"]) else { continue }
        guard result.status == 0 else {
          failures.add(1, note: result.standardError)  // kept locally: the next round's sync pushes it
          continue
        }
        // `synced: ...; pushed ... (N rounds)` when other devices pushed in between.
        if result.standardOutput.hasSuffix(" rounds)\n"),
          let count = result.standardOutput.split(separator: "(").last?.split(separator: " ").first.flatMap({ Int($0) })
        {
          extraRounds.add(count - 1)
        }
        #expect(!result.standardOutput.contains("conflict"), "\(result.standardOutput)")
      }
    }
    // At most a few syncs gave up after 8 rounds (what they had is pushed by the next sync).
    #expect(failures.value <= 2, "\(failures.value) of \(devices.count * rounds) syncs failed: \(failures.notes)")
    #expect(extraRounds.value > 0, "the devices never raced; the test proves nothing")
    for device in devices {
      let last = try Shell.docpkg(["sync", device])
      #expect(last.status == 0, "\(last.standardError)")
    }

    // Every device, and a fresh clone, has every edit of every device.
    let check = dir.appending("Check.mydoc")
    #expect(try Shell.docpkg(["clone", url, check, "--endpoint", ObjectStore.endpointURL]).status == 0)
    var lost = 0
    for package in [check] + devices {
      if package != check { _ = try Shell.docpkg(["pull", package]) }
      for index in devices.indices {
        for round in 0..<rounds where read("\(package)/D\(index)-\(round).txt") != "D\(index) round \(round)\n" {
          lost += 1
        }
        if read("\(package)/D\(index).txt") != "D\(index) at round \(rounds - 1)\n" { lost += 1 }
      }
    }
    #expect(lost == 0, "\(lost) edits lost")
  }
}

/// A count shared by threads, with notes on what was counted.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private var noted: [String] = []
  var value: Int { lock.withLock { count } }
  var notes: [String] { lock.withLock { noted } }
  func add(_ amount: Int, note: String? = nil) {
    lock.withLock {
      count += amount
      if let note { noted.append(note) }
    }
  }
}
