import Foundation

/// Runs `body` on a thread of its own and waits for it without holding a thread of the
/// cooperative pool.
///
/// Swift Testing runs every test, synchronous ones too, on the cooperative pool, which has one
/// thread per core: two here. A test that blocks for minutes (a crash test, a stress loop of other
/// processes) would otherwise stop every `async` test of the run, and tests that wait for a
/// monitor or a document with a time limit would fail for want of a thread. Long blocking work
/// goes through this; `#expect` stays in the test's own task, on the value returned.
/// - Parameter stackSize: The thread's stack size in bytes (nil: Foundation's default, 8 MiB here). The deep-tree
///   tests give 512 KiB, what a Dispatch or Swift concurrency worker has, so that recursion would show.
public func offThePool<T: Sendable>(stackSize: Int? = nil, _ body: @escaping @Sendable () throws -> T) async throws
  -> T
{
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread { continuation.resume(with: Result { try body() }) }
    thread.name = "test work off the pool"
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
  }
}
