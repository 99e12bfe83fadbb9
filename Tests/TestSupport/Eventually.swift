/// Waits until `condition` holds, checking it every few milliseconds for at most `seconds`: how a
/// test waits for another thread or process without sleeping for a fixed time.
/// - Returns: Whether `condition` held before the deadline (it is checked once more at the end).
@discardableResult
public func eventually(seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
  while ContinuousClock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return condition()
}

/// The async form of ``eventually(seconds:_:)``, for conditions that read an actor.
@discardableResult
public func eventually(seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
  while ContinuousClock.now < deadline {
    if await condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return await condition()
}
