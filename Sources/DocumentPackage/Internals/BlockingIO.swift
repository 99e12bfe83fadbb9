import Dispatch

/// Runs blocking file I/O on a queue of its own, never on Swift's cooperative pool (whose few threads the
/// HTTP client's, the HTTP server's and everyone else's tasks share): DocumentSync's and `docpkg serve`'s.
package enum BlockingIO {
  private static let queue = DispatchQueue(label: "DocumentPackage.BlockingIO", attributes: .concurrent)

  /// The result of `work`, run on the blocking queue.
  package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try work() }) }
    }
  }
}

/// A value of a non-`Sendable` type handed from a ``BlockingIO`` job to the one task that uses it (a package lock
/// taken off the cooperative pool, held until the task ends). Never used by two tasks at once.
package final class Handed<Value>: @unchecked Sendable {
  package let value: Value
  package init(_ value: Value) { self.value = value }
}
