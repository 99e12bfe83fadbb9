import Dispatch
import DocumentPackage

/// The groups of files a ``FileWriterPool`` has handed out, shared by its workers and the
/// extractor's thread: whoever is free claims the oldest group whose directories no other thread
/// is writing in, so two threads do not contend for one directory's lock in the kernel.
///
/// Workers are Dispatch blocks, at most `workers` at a time, started when a group is queued and
/// ending when nothing is left to claim. No thread spins: one that has nothing to claim while
/// others still write waits on a semaphore signalled at the end of every group.
final class FileWriterQueue: @unchecked Sendable {
  /// Consecutive files, created by one thread in order.
  struct Group: @unchecked Sendable {
    var jobs: [FileJob] = []
    /// The index (in archive order) of each job, to report the first failure.
    var indexes: [Int] = []
    var bytes = 0
    /// The directories the files go in (a few: the files are consecutive in the archive).
    var directories: [ObjectIdentifier] = []

    mutating func add(_ job: FileJob, index: Int) {
      jobs.append(job)
      indexes.append(index)
      bytes += job.data.count
      let directory = ObjectIdentifier(job.parent)
      if directories.last != directory, !directories.contains(directory) { directories.append(directory) }
    }
  }

  private let lock = SystemLock()
  private let workers: Int
  private let archive: String
  private var queued: [Group] = []
  private var busy: [ObjectIdentifier: Int] = [:]
  /// Groups being created right now.
  private var running = 0
  private var activeWorkers = 0
  private var failure: (index: Int, error: any Error)?
  private let finished = DispatchSemaphore(value: 0)
  private let workersDone = DispatchGroup()

  init(workers: Int, archive: String) {
    self.workers = workers
    self.archive = archive
  }

  /// Queues `group`, and starts a worker if fewer than `workers` run.
  func enqueue(_ group: Group) {
    let start = lock.withLock {
      queued.append(group)
      guard activeWorkers < workers else { return false }
      activeWorkers += 1
      return true
    }
    if start { startWorker() }
  }

  private func startWorker() {
    workersDone.enter()
    DispatchQueue.global().async { [self] in
      while let group = claim(retiring: true) { create(group) }
      workersDone.leave()
    }
  }

  /// The oldest group no other thread's directories overlap, marked as running; `nil` if none.
  /// A worker (`retiring`) that finds none stops, in the same critical section.
  private func claim(retiring: Bool) -> Group? {
    lock.withLock {
      let index = queued.firstIndex { group in group.directories.allSatisfy { busy[$0] == nil } }
      guard let index else {
        if retiring { activeWorkers -= 1 }
        return nil
      }
      let group = queued.remove(at: index)
      for directory in group.directories { busy[directory, default: 0] += 1 }
      running += 1
      return group
    }
  }

  /// Creates the group's files in order, then releases its directories.
  private func create(_ group: Group) {
    for (job, index) in zip(group.jobs, group.indexes) {
      do { try FileWriterPool.create(job, archive: archive) } catch {
        lock.withLock { if failure == nil || index < failure!.index { failure = (index, error) } }
      }
    }
    let restart = lock.withLock {
      for directory in group.directories {
        busy[directory]! -= 1
        if busy[directory] == 0 { busy[directory] = nil }
      }
      running -= 1
      // A worker may have stopped because this group's directories were busy.
      guard !queued.isEmpty, activeWorkers < workers else { return false }
      activeWorkers += 1
      return true
    }
    if restart { startWorker() }
    finished.signal()
  }

  /// Creates groups on the calling thread while more than `limit` are queued or running
  /// (`limit` 0: until every group is done), waiting only when none can be claimed.
  func help(whileMoreThan limit: Int) {
    while true {
      let pending = lock.withLock { queued.count + running }
      if pending <= limit { return }
      if let group = claim(retiring: false) {
        create(group)
      } else {
        finished.wait()  // a group ends; stale signals only make the loop look again
      }
    }
  }

  /// Throws the first failure in job order, if there is one: after a failure it first lets every group
  /// handed out end, so that a failure on another thread of an earlier file is the one reported.
  func check() throws {
    guard lock.withLock({ failure != nil }) else { return }
    help(whileMoreThan: 0)
    if let error = lock.withLock({ failure?.error }) { throw error }
  }

  /// Drops the groups not yet claimed and waits for every worker to stop: the pool's end (after
  /// ``FileWriterPool/wait()`` nothing is left to drop; after a failure nothing more is wanted).
  func finish() {
    lock.withLock { queued.removeAll() }
    workersDone.wait()
  }
}
