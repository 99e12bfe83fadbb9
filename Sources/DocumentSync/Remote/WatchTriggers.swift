import NIOConcurrencyHelpers

/// What woke a sync watch (``PackageSync/watch(options:)``): a local save the package's monitor saw, or the poll
/// timer. The reasons are flags, set by the tasks that notice them and taken by the watch's loop, so that any number
/// of saves during a sync make one sync after it; a wake-up stream that holds at most one element tells the loop
/// that some flag was set.
final class WatchTriggers: Sendable {
  /// The reasons set since the loop last took them.
  struct Reasons: Sendable, Hashable {
    /// The package changed on disk (a save by any process but this sync's own pulls).
    var localChange = false
    /// The poll interval passed: the remote's head is due to be asked about.
    var pollDue = false
  }

  private let reasons = NIOLockedValueBox(Reasons())
  /// One element when a flag was set since the loop last waited.
  let wakeUps: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  init() {
    (wakeUps, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// Notes a local change and wakes the loop.
  func noteLocalChange() {
    reasons.withLockedValue { $0.localChange = true }
    continuation.yield()
  }

  /// Notes that the remote's head is due to be polled and wakes the loop.
  func notePollDue() {
    reasons.withLockedValue { $0.pollDue = true }
    continuation.yield()
  }

  /// The reasons set since the last take, cleared.
  func take() -> Reasons {
    reasons.withLockedValue { reasons in
      defer { reasons = Reasons() }
      return reasons
    }
  }
}
