import SystemPackage

/// A deadline for the waits of reader–writer coordination (``PackageReadLock``,
/// ``ReaderExclusion``): no lock is ever waited for in the kernel, where a stalled holder would
/// keep the waiter forever; each is tried, and tried again after a pause that doubles from
/// 100 µs to 2 ms, until it is taken or the deadline passes.
struct LockWait {
  let limit: Duration
  let deadline: ContinuousClock.Instant

  init(limit: Duration) {
    self.limit = limit
    deadline = ContinuousClock.now.advanced(by: limit)
  }

  var expired: Bool { ContinuousClock.now >= deadline }

  /// Calls `attempt` until it succeeds (true) or the deadline passes (false). An error that is
  /// not "held by someone else" is thrown at once.
  func poll(_ attempt: () throws(Errno) -> Void) throws(Errno) -> Bool {
    var pause = 100
    while true {
      do {
        try attempt()
        return true
      } catch  where Syscalls.isLockConflict(error) {
        if expired { return false }
        Syscalls.pause(microseconds: pause)
        pause = min(pause * 2, 2000)
      }
    }
  }

  /// The limit in words, for messages: "10 s", "0.5 s".
  var described: String {
    let (seconds, attoseconds) = limit.components
    if attoseconds == 0 { return "\(seconds) s" }
    return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
  }
}
