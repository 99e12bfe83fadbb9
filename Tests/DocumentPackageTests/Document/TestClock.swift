import Foundation

/// A clock that moves only when a test advances it, so that timers (autosave) are driven
/// without sleeping for fixed times.
final class TestClock: Clock, @unchecked Sendable {
  /// A point on the test clock: the time advanced since it was made.
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private let lock = NSLock()
  private var current = Instant(offset: .zero)
  private var sleepers: [Sleeper] = []
  private var cancelled: Set<Int> = []
  private var nextID = 0
  private var sleeperWaiters: [CheckedContinuation<Void, Never>] = []

  var now: Instant { lock.withLock { current } }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = lock.withLock {
      nextID += 1
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
          if cancelled.contains(id) {
            continuation.resume(throwing: CancellationError())
            return []
          }
          if deadline <= current {
            continuation.resume()
            return []
          }
          sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          defer { sleeperWaiters = [] }
          return sleeperWaiters
        }
        for waiter in waiters { waiter.resume() }
      }
    } onCancel: {
      let sleeper: Sleeper? = lock.withLock {
        cancelled.insert(id)
        guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Returns once something sleeps on this clock.
  func waitForSleeper() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = lock.withLock {
        if !sleepers.isEmpty { return true }
        sleeperWaiters.append(continuation)
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// How many tasks sleep on this clock now.
  var sleeperCount: Int { lock.withLock { sleepers.count } }

  /// Moves the clock on by `duration`, waking every sleeper whose deadline has come.
  func advance(by duration: Duration) {
    let woken: [Sleeper] = lock.withLock {
      current = current.advanced(by: duration)
      let due = sleepers.filter { $0.deadline <= current }
      sleepers.removeAll { $0.deadline <= current }
      return due
    }
    for sleeper in woken { sleeper.continuation.resume() }
  }
}
