import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Whether `unshare -r` can make a user namespace here: inotify's per-user limits
/// (`/proc/sys/user/max_inotify_*`) can then be lowered for one process tree, without root and
/// without touching the rest of the machine.
private let canMakeUserNamespace: Bool = {
  guard Shell.has("unshare") else { return false }
  return (try? Shell.run("unshare", ["-r", "true"], check: false).status) == 0
}()

/// Runs `docpkg ARGUMENTS` in a new user namespace whose inotify `limit` (`max_inotify_watches` or
/// `max_inotify_instances`) is `value`.
private func docpkgWithLimit(_ limit: String, _ value: Int, _ arguments: [String]) throws -> RunningProcess {
  let script = "echo \(value) > /proc/sys/user/\(limit) && exec \"$0\" \"$@\""
  return try RunningProcess("/usr/bin/unshare", ["-r", "/bin/sh", "-c", script, Shell.docpkgPath] + arguments)
}

/// Monitor options with an inotify instance of their own whose queue holds 16 events: the
/// kernel's limit (`fs.inotify.max_queued_events`, 16,384 here) is lowered for the instance's
/// creation only, and restored at once. Needs root.
///
/// The limit is the machine's, and tests run in parallel: without the lock, two of these could
/// interleave so that one restores the default while the other is between lowering and creating
/// (its instance then gets 16,384 and never overflows: seen in CI as "no rescan reported"), or
/// one "restores" the other's 16 for good.
private func optionsWithAQueueOf16() throws -> PackageMonitor.Options {
  try queueLimitLock.withLock { try optionsWithAQueueOf16Locked() }
}

private let queueLimitLock = NSLock()

private func optionsWithAQueueOf16Locked() throws -> PackageMonitor.Options {
  // The process's shared instance, if this made it first, would get the small queue too.
  _ = try WatchInstance.shared()
  let limit = "/proc/sys/fs/inotify/max_queued_events"
  let saved = try String(contentsOfFile: limit, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
  try "16".write(toFile: limit, atomically: false, encoding: .utf8)
  let instance = Result { try WatchInstance() }
  try saved.write(toFile: limit, atomically: false, encoding: .utf8)
  var options = PackageMonitor.Options()
  options.instance = try instance.get()
  return options
}

@Suite("Package monitor limits")
struct MonitorLimitTests {
  /// The kernel's queue of events is set when a monitor starts (`fs.inotify.max_queued_events`,
  /// 16,384 here): the test lowers it to 16 for the one monitor it starts, and restores it at once.
  @Test(.enabled(if: getuid() == 0, "lowering fs.inotify.max_queued_events needs root"))
  func aQueueOverflowIsARescanThatMissesNothing() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    // The queue's size is the instance's: this monitor gets an instance of its own, not the process's shared one.
    let monitor = try PackageMonitor(watching: FilePath(package), options: try optionsWithAQueueOf16())
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    // Another process writes batches of 100 files, then touches each 20 times (2,000 events in a few
    // milliseconds: however fast the monitor drains the queue, a loaded machine's scheduler cannot
    // wake it every 16 of them), until the 16-event queue overflowed.
    let script = """
      import os, sys
      names = [f'{sys.argv[1]}/f{sys.argv[2]}_{i}.txt' for i in range(100)]
      for name in names: open(name, 'w').write('x')
      for _ in range(20):
          for name in names: os.utime(name)
      """
    var written: Set<String> = []
    var batch = 0
    let overflowed = await events.wait(seconds: 30) { collector in
      if collector.changes.contains(where: { $0.kind == .rescanned }) { return true }
      if (try? Shell.run("python3", ["-c", script, package + "/Data", "\(batch)"])) != nil {
        for index in 0..<100 { written.insert("Data/f\(batch)_\(index).txt") }
      }
      batch += 1
      return false
    }
    #expect(overflowed, "no rescan reported after \(batch) batches")
    // Every file written is reported as added, by the events before the overflow or by the rescan.
    let all = await events.wait(seconds: 20) { collector in
      written.isSubset(of: Set(collector.changes.filter { $0.kind == .added }.map(\.path)))
    }
    let added = Set(events.changes.filter { $0.kind == .added }.map(\.path))
    #expect(all, "\(written.subtracting(added).count) of \(written.count) files never reported")
    #expect(events.error == nil)
    // The monitor goes on after the rescan.
    try temp.write("Doc.pkg/a.txt", "after the overflow\n")
    #expect(await events.wait(for: .modified, "a.txt"))
  }

  /// The events lost in an overflow may include the package's own deletion: the rescan after an
  /// overflow checks the package itself first, so its deletion is still reported and the sequence ends.
  @Test(.enabled(if: getuid() == 0, "lowering fs.inotify.max_queued_events needs root"))
  func aDeletionLostInAnOverflowIsStillReported() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let options = try optionsWithAQueueOf16()
    let monitor = try PackageMonitor(watching: FilePath(package), options: options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    // One process writes 1,000 files and then deletes the package: far more events than the
    // queue of 16 holds, so the package's own deletion is usually among the lost ones.
    let script = """
      import shutil, sys
      for i in range(1000): open(f'{sys.argv[1]}/Data/f{i}.txt', 'w').write('x')
      shutil.rmtree(sys.argv[1])
      """
    try Shell.run("python3", ["-c", script, package])
    #expect(
      await events.wait { $0.changes.contains { $0.kind == .packageDeleted } }, "\(events.changes.suffix(5))")
    #expect(await events.wait { $0.hasEnded })
  }

  /// Monitors sharing an instance share its queue: when it overflows (here, by writes into one
  /// package), every monitor of the instance rescans, and each still reports what changed in its package.
  @Test(.enabled(if: getuid() == 0, "lowering fs.inotify.max_queued_events needs root"))
  func anOverflowOfASharedInstanceRescansEveryMonitorOfIt() async throws {
    let temp = try TemporaryDirectory("monitor")
    let busy = try makeWatchedPackage(in: temp)
    try temp.write("Quiet.pkg/q.txt", "q\n")
    let quiet = temp.appending("Quiet.pkg")
    let options = try optionsWithAQueueOf16()
    let busyMonitor = try PackageMonitor(watching: FilePath(busy), options: options)
    let quietMonitor = try PackageMonitor(watching: FilePath(quiet), options: options)
    defer {
      busyMonitor.stop()
      quietMonitor.stop()
    }
    let busyEvents = EventCollector(busyMonitor)
    let quietEvents = EventCollector(quietMonitor)
    try temp.write("Quiet.pkg/q.txt", "changed before the overflow\n")
    // Batches of 1,000 files (3,000 events): the shared reader thread drains the queue of 16 between
    // small bursts when it gets a core, so only a burst much larger than the queue overflows it for sure.
    let script = "import sys\nfor i in range(1000): open(f'{sys.argv[1]}/f{sys.argv[2]}_{i}.txt', 'w').write('x')"
    var batch = 0
    let overflowed = await busyEvents.wait(seconds: 30) { collector in
      if collector.changes.contains(where: { $0.kind == .rescanned }) { return true }
      _ = try? Shell.run("python3", ["-c", script, busy + "/Data", "\(batch)"])
      batch += 1
      return false
    }
    #expect(overflowed, "no rescan reported after \(batch) batches")
    #expect(await quietEvents.wait { $0.changes.contains { $0.kind == .rescanned } }, "\(quietEvents.changes)")
    #expect(await quietEvents.wait { $0.changes.contains { $0.path == "q.txt" && $0.kind == .modified } })
    try temp.write("Quiet.pkg/r.txt", "after the overflow\n")
    #expect(await quietEvents.wait(for: .added, "r.txt"))
  }

  @Test(.enabled(if: canMakeUserNamespace, "needs unprivileged user namespaces (unshare -r)"))
  func theWatchLimitAtSetUpIsAClearErrorNamingTheDirectory() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)  // 3 directories, plus the parent: 4 watches
    let watch = try docpkgWithLimit("max_inotify_watches", 3, ["watch", package])
    defer { watch.stop() }
    #expect(await watch.waitForExit())
    #expect(watch.status == 1)
    let error = watch.standardError
    #expect(error.contains("limit of inotify watches is reached"), "\(error)")
    #expect(error.contains("Doc.pkg/Data"), "\(error)")
    #expect(error.contains("fs.inotify.max_user_watches"), "\(error)")
  }

  @Test(.enabled(if: canMakeUserNamespace, "needs unprivileged user namespaces (unshare -r)"))
  func theWatchLimitReachedByANewDirectoryEndsTheSequenceWithTheError() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let watch = try docpkgWithLimit("max_inotify_watches", 5, ["watch", package])
    defer { watch.stop() }
    #expect(await watch.wait { $0.standardError.contains("docpkg: watching") }, "\(watch.standardError)")
    try temp.write("Doc.pkg/New/One/x.txt", "x\n")  // two more directories: one over the limit
    #expect(await watch.waitForExit(), "watch went on after the limit was reached: \(watch.standardOutput)")
    #expect(watch.status == 1)
    #expect(watch.standardError.contains("limit of inotify watches is reached"), "\(watch.standardError)")
    #expect(watch.standardError.contains("Doc.pkg/New"), "\(watch.standardError)")
  }

  @Test(.enabled(if: canMakeUserNamespace, "needs unprivileged user namespaces (unshare -r)"))
  func theInstanceLimitIsAClearErrorNamingTheLimit() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let watch = try docpkgWithLimit("max_inotify_instances", 0, ["watch", package])
    defer { watch.stop() }
    #expect(await watch.waitForExit())
    #expect(watch.status == 1)
    #expect(watch.standardError.contains("limit of inotify instances is reached"), "\(watch.standardError)")
    #expect(watch.standardError.contains("fs.inotify.max_user_instances"), "\(watch.standardError)")
  }
}
