import Dispatch
import NIOConcurrencyHelpers

/// Where previews are made, at most ``width`` at once (issue 38: beside 60 previews, `/api/info` took 34 s).
///
/// A preview is slow (a JSON or XML file of up to 2 MiB re-indented, then encoded), but needs the tree only to
/// read its bytes. So a preview first takes a place here (in the order asked), then reads its bytes on the
/// ``PackageBrowser``'s queue — a short job, so the queue stays free for the page's cheap requests — and is made
/// and encoded on its place's own thread, never on the browser's queue, an event loop or the cooperative pool.
/// Since only ``width`` previews hold their bytes at once, many previews asked together wait without memory.
///
/// Each place is a serial queue of its own: on Linux a concurrent queue's jobs share one thread per core with
/// everything else on it.
final class PreviewPool: Sendable {
  /// The most previews made at once.
  let width: Int
  private let queues: [DispatchQueue]
  private let state: NIOLockedValueBox<State>

  private struct State {
    /// The places not taken.
    var free: [Int]
    /// The previews waiting for a place, in the order they asked.
    var waiting: [CheckedContinuation<Int, Never>] = []
    var firstWaiting = 0
  }

  init(width: Int) {
    self.width = width
    queues = (0..<width).map { DispatchQueue(label: "PackageServer.PreviewPool.\($0)") }
    state = NIOLockedValueBox(State(free: Array(0..<width)))
  }

  /// Runs `work` once a place is free: it is given a function that runs a job on the place's thread.
  func run<T: Sendable>(
    _ work: (_ onThread: @escaping @Sendable (@escaping @Sendable () throws -> T) async throws -> T) async throws -> T
  ) async throws -> T {
    let place = await take()
    defer { giveBack(place) }
    let queue = queues[place]
    return try await work { job in
      try await withCheckedThrowingContinuation { continuation in
        queue.async { continuation.resume(with: Result { try job() }) }
      }
    }
  }

  private func take() async -> Int {
    await withCheckedContinuation { continuation in
      let place = state.withLockedValue { state -> Int? in
        if let place = state.free.popLast() { return place }
        state.waiting.append(continuation)
        return nil
      }
      if let place { continuation.resume(returning: place) }
    }
  }

  private func giveBack(_ place: Int) {
    let next = state.withLockedValue { state -> CheckedContinuation<Int, Never>? in
      guard state.firstWaiting < state.waiting.count else {
        state.free.append(place)
        return nil
      }
      let next = state.waiting[state.firstWaiting]
      state.firstWaiting += 1
      if state.firstWaiting * 2 >= state.waiting.count {
        state.waiting.removeFirst(state.firstWaiting)
        state.firstWaiting = 0
      }
      return next
    }
    next?.resume(returning: place)
  }
}
