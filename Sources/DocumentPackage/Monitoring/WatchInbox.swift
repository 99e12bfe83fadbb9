#if os(Linux)
import Dispatch
import SystemPackage

/// A monitor's queue of inotify events, filled by its `WatchInstance`'s reader thread and
/// emptied by the monitor's own thread, which waits on it (with a timeout, for its debounce).
final class WatchInbox: @unchecked Sendable {
  private let lock = SystemLock()
  /// Signalled once per delivery, failure or wake. A count can outlive what it announced (the
  /// waiter took those events already): ``take(waiting:)`` then just looks again.
  private let arrivals = DispatchSemaphore(value: 0)
  private var queued: [WatchEvent] = []
  private var failure: Errno?
  private var woken = false

  /// Adds events (the reader thread).
  func deliver(_ events: [WatchEvent]) {
    lock.withLock { queued += events }
    arrivals.signal()
  }

  /// Reading the instance failed: the monitor ends with this error.
  func fail(_ error: Errno) {
    lock.withLock { failure = error }
    arrivals.signal()
  }

  /// Wakes the waiting thread (the monitor was stopped).
  func wake() {
    lock.withLock { woken = true }
    arrivals.signal()
  }

  /// The events queued, waiting up to `timeout` for some when there are none (possibly returning
  /// none: at the timeout, or when woken by ``wake()``).
  /// - Throws: The error the reader met (see ``fail(_:)``).
  func take(waiting timeout: Duration) throws(Errno) -> [WatchEvent] {
    let parts = timeout.components
    let nanoseconds = max(0, parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    let deadline = DispatchTime.now() + .nanoseconds(Int(nanoseconds))
    while true {
      let (events, error, wasWoken): ([WatchEvent], Errno?, Bool) = lock.withLock {
        defer {
          queued = []
          woken = false
        }
        return (queued, failure, woken)
      }
      if let error { throw error }
      if !events.isEmpty || wasWoken || DispatchTime.now() >= deadline { return events }
      _ = arrivals.wait(timeout: deadline)
    }
  }
}
#endif
