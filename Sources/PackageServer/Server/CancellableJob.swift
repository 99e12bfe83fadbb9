import Dispatch
import DocumentArchive

extension DispatchQueue {
  /// Runs `job` on this queue for the calling task, which waits for it. A task cancelled while the job waits its
  /// turn skips it (`CancellationError`); one cancelled while it runs is told through `isCancelled`, which the job
  /// asks between its steps (a client that went away stops the work done for it).
  func runCancellable<T: Sendable>(
    _ job: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    let cancellation = ArchiveCancellation()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        self.async {
          continuation.resume(
            with: Result {
              guard !cancellation.isCancelled else { throw CancellationError() }
              return try job { cancellation.isCancelled }
            })
        }
      }
    } onCancel: {
      cancellation.cancel()
    }
  }
}
