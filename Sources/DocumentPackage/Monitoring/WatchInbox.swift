#if os(Linux)
import SystemPackage

#if canImport(Foundation)
import Foundation
#endif

/// A monitor's queue of inotify events, filled by its ``WatchInstance``'s reader thread and
/// emptied by the monitor's own thread, which waits on it (with a timeout, for its debounce).
final class WatchInbox: @unchecked Sendable {
  private let condition = NSCondition()
  private var queued: [WatchEvent] = []
  private var failure: Errno?

  /// Adds events (the reader thread).
  func deliver(_ events: [WatchEvent]) {
    condition.lock()
    queued += events
    condition.signal()
    condition.unlock()
  }

  /// Reading the instance failed: the monitor ends with this error.
  func fail(_ error: Errno) {
    condition.lock()
    failure = error
    condition.signal()
    condition.unlock()
  }

  /// Wakes the waiting thread (the monitor was stopped).
  func wake() {
    condition.lock()
    condition.signal()
    condition.unlock()
  }

  /// The events queued, waiting up to `timeout` for some when there are none (possibly returning
  /// none).
  /// - Throws: The error the reader met (see ``fail(_:)``).
  func take(waiting timeout: Duration) throws(Errno) -> [WatchEvent] {
    condition.lock()
    defer { condition.unlock() }
    if queued.isEmpty && failure == nil && timeout > .zero {
      let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
      _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
    }
    if let failure { throw failure }
    let events = queued
    queued = []
    return events
  }
}
#endif
