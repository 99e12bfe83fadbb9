import Dispatch

/// Runs blocking file I/O on a queue of its own, never on Swift's cooperative pool (whose few threads the
/// HTTP client's and everyone else's tasks share).
enum BlockingIO {
  private static let queue = DispatchQueue(label: "DocumentSync.BlockingIO", attributes: .concurrent)

  /// The result of `work`, run on the blocking queue.
  static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try work() }) }
    }
  }
}

/// A value of a non-`Sendable` type handed from a ``BlockingIO`` job to the one task that uses it (a package lock
/// taken off the cooperative pool, held until the task ends). Never used by two tasks at once.
final class Handed<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
