import Dispatch

/// The serial executor every ``Document`` runs on: a private serial dispatch queue, so that the
/// document's blocking file I/O (open, save, revert, restore, merge, with their `fsync`s) runs on
/// a dispatch worker thread of its own, never on Swift's cooperative thread pool, and an app's
/// other tasks keep running during a long save.
///
/// A serial queue is "overcommit": dispatch gives it a thread even when the cooperative pool's
/// threads are all busy, so a save never waits for the pool and never blocks it.
final class DocumentExecutor: SerialExecutor {
  /// The queue the document's jobs run on, one after another.
  let queue: DispatchQueue

  /// Creates an executor with a new serial queue named `label`.
  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  /// Stops the program if the caller is not running on this executor's queue (a check that
  /// blocking I/O really happens off the cooperative pool).
  func requireOnQueue() {
    dispatchPrecondition(condition: .onQueue(queue))
  }
}
