import Dispatch
import DocumentArchive
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
///
/// **Abandoned previews give their place back.** A request's task is cancelled when its client goes
/// (``HTTPChannelHandler``). A preview still waiting for a place then leaves the line at once; one being made is
/// told through the `isCancelled` its job is given (the re-indenters ask it every 64 KiB), stops, and frees its
/// place; one whose job had not started yet does not start. So previews asked and abandoned never keep the next
/// client waiting.
final class PreviewPool: Sendable {
  /// The most previews made at once.
  let width: Int
  private let queues: [DispatchQueue]
  private let state: NIOLockedValueBox<State>

  /// A job run on a place's thread; `isCancelled` says that its client has gone.
  typealias Job<T> = @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T

  private struct State {
    /// The places not taken.
    var free: [Int]
    /// The previews waiting for a place, in the order they asked; `nil` for one that stopped waiting (cancelled).
    var waiting: [(ticket: UInt64, continuation: CheckedContinuation<Int, any Error>?)] = []
    var firstWaiting = 0
    var nextTicket: UInt64 = 0
  }

  init(width: Int) {
    self.width = width
    queues = (0..<width).map { DispatchQueue(label: "PackageServer.PreviewPool.\($0)") }
    state = NIOLockedValueBox(State(free: Array(0..<width)))
  }

  /// How many places are taken now.
  var running: Int { width - state.withLockedValue { $0.free.count } }

  /// Runs `work` once a place is free: it is given a function that runs a job on the place's thread.
  /// - Throws: What `work` throws; `CancellationError` when the task is cancelled while it waits for a place, or
  ///   before its job starts.
  func run<T: Sendable>(
    _ work: (_ onThread: @escaping @Sendable (@escaping Job<T>) async throws -> T) async throws -> T
  ) async throws -> T {
    let place = try await take()
    defer { giveBack(place) }
    let queue = queues[place]
    return try await work { job in try await queue.runCancellable(job) }
  }

  /// A free place, once there is one; a task cancelled while it waits leaves the line.
  private func take() async throws -> Int {
    let ticket = state.withLockedValue { state in
      state.nextTicket += 1
      return state.nextTicket
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let place = state.withLockedValue { state -> Int? in
          if let place = state.free.popLast() { return place }
          state.waiting.append((ticket, continuation))
          return nil
        }
        if let place {
          continuation.resume(returning: place)
        } else if Task.isCancelled {
          // Cancelled before it joined the line: `onCancel` may have looked for it too early.
          leave(ticket)
        }
      }
    } onCancel: {
      leave(ticket)
    }
  }

  /// Takes the preview with `ticket` out of the line, if it still waits, and tells it it was cancelled.
  private func leave(_ ticket: UInt64) {
    let continuation = state.withLockedValue { state -> CheckedContinuation<Int, any Error>? in
      guard let index = state.waiting[state.firstWaiting...].firstIndex(where: { $0.ticket == ticket }) else {
        return nil
      }
      defer { state.waiting[index].continuation = nil }
      return state.waiting[index].continuation
    }
    continuation?.resume(throwing: CancellationError())
  }

  private func giveBack(_ place: Int) {
    let next = state.withLockedValue { state -> CheckedContinuation<Int, any Error>? in
      var next: CheckedContinuation<Int, any Error>?
      while next == nil, state.firstWaiting < state.waiting.count {
        next = state.waiting[state.firstWaiting].continuation
        state.firstWaiting += 1
      }
      if state.firstWaiting * 2 >= state.waiting.count {
        state.waiting.removeFirst(state.firstWaiting)
        state.firstWaiting = 0
      }
      if next == nil { state.free.append(place) }
      return next
    }
    next?.resume(returning: place)
  }
}
