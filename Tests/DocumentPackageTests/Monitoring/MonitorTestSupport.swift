import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Collects a monitor's events on a task, so that a test can wait (with a deadline) until the
/// events it expects have come.
final class EventCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var received: [PackageMonitor.Event] = []
  private var receivedAt: [ContinuousClock.Instant] = []
  private var failure: (any Error)?
  private var ended = false
  private var task: Task<Void, Never>?

  init(_ monitor: PackageMonitor) {
    task = Task { [self] in
      do {
        for try await event in monitor {
          let now = ContinuousClock.now
          lock.withLock {
            received.append(event)
            receivedAt.append(now)
          }
        }
      } catch { lock.withLock { failure = error } }
      lock.withLock { ended = true }
    }
  }

  var events: [PackageMonitor.Event] { lock.withLock { received } }
  /// When the first change matching `condition` came (as the collecting task received it); nil if none has.
  func arrival(of condition: (PackageMonitor.Change) -> Bool) -> ContinuousClock.Instant? {
    lock.withLock { received.firstIndex { $0.changes.contains(where: condition) }.map { receivedAt[$0] } }
  }
  var changes: [PackageMonitor.Change] { events.flatMap(\.changes) }
  var hasEnded: Bool { lock.withLock { ended } }
  var error: (any Error)? { lock.withLock { failure } }

  /// Waits until `condition` holds, at most `seconds`. Returns whether it held.
  @discardableResult
  /// (30 s by default: on a machine loaded with a benchmark beside the suite, the polling monitors' threads waited
  /// longer than 10 s for their turn. A wait that succeeds returns at once.)
  func wait(seconds: Double = 30, until condition: (EventCollector) -> Bool) async -> Bool {
    await eventually(seconds: seconds) { condition(self) }
  }

  /// Waits until a change of `kind` at `path` was reported.
  @discardableResult
  func wait(for kind: PackageMonitor.Change.Kind, _ path: String, seconds: Double = 30) async -> Bool {
    await wait(seconds: seconds) { $0.changes.contains { $0.kind == kind && $0.path == path } }
  }

  func stop() { task?.cancel() }
}

/// The two ways a monitor learns of changes, for the tests of what it reports: the same changes
/// either way.
enum Watching: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// inotify, where the temporary folder is (a local file system).
  case inotify
  /// Polling every 100 ms (``PackageMonitor/Options/alwaysPolls``).
  case polling
  /// inotify, with only the root's entries listed at the start (``PackageMonitor/Options/listsLazily``, a
  /// ``Document``'s monitor).
  case lazyListing

  var options: PackageMonitor.Options {
    var options = PackageMonitor.Options()
    if self == .polling {
      options.alwaysPolls = true
      options.pollingInterval = .milliseconds(100)
    }
    options.listsLazily = self == .lazyListing
    return options
  }

  var testDescription: String { rawValue }
}

/// A package `Doc.pkg` in `temp` with `a.txt`, `Data/b.txt` and `Data/Deep/c.txt`.
func makeWatchedPackage(in temp: TemporaryDirectory) throws -> String {
  try temp.write("Doc.pkg/a.txt", "a\n")
  try temp.write("Doc.pkg/Data/b.txt", "b\n")
  try temp.write("Doc.pkg/Data/Deep/c.txt", "c\n")
  return temp.appending("Doc.pkg")
}

/// Holds a monitor's bursts back before it compares them (``PackageMonitor/Options/beforeComparing``)
/// until the test opens it: what another program does meanwhile happens after the burst's events
/// and before the monitor looked, as on a busy machine, every time.
final class ComparisonGate: @unchecked Sendable {
  private let lock = NSLock()
  private let opening = DispatchSemaphore(value: 0)
  private var arrived = false
  private var opened = false

  /// For ``PackageMonitor/Options/beforeComparing``: waits until the gate is open.
  func pass() {
    if lock.withLock({
      arrived = true
      return opened
    }) {
      return
    }
    opening.wait()
    opening.signal()  // for the next burst
  }

  /// Whether a burst is waiting (or came through), after at most 30 s.
  func waitForBurst() async -> Bool { await eventually(seconds: 30) { self.lock.withLock { self.arrived } } }

  /// Lets every burst through, now and later.
  func open() {
    let wasOpen = lock.withLock {
      defer { opened = true }
      return opened
    }
    if !wasOpen { opening.signal() }
  }
}
