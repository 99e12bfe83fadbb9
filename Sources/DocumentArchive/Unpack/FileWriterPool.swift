import Dispatch
import DocumentPackage
import SystemPackage

/// An open directory, closed when the last user lets go: the extractor's cache and any file
/// still being written in it.
final class DirectoryHandle: @unchecked Sendable {
  let fd: CInt
  init(fd: CInt) { self.fd = fd }
  deinit { Syscalls.closeFile(fd) }
}

/// A small file read and checked by the extractor, to be created by a worker.
struct FileJob: @unchecked Sendable {
  var parent: DirectoryHandle
  var name: String
  /// The path inside the destination, for errors.
  var path: String
  var data: [UInt8]
  var mode: CInterop.Mode
  var time: FileTime?
}

/// Creates small files on worker threads while the extractor reads and inflates the next ones,
/// so the file system's work overlaps libarchive's. Jobs go in batches; a batch is waited for
/// before the next one is handed out, which bounds memory to two batches.
final class FileWriterPool {
  private let workers: Int
  private let archive: String
  private var batch: [FileJob] = []
  private var batchBytes = 0
  private var running: (group: DispatchGroup, errors: ErrorSlot)?

  static let batchFiles = 256
  static let batchLimit = 8 << 20

  init(archive: String) {
    self.archive = archive
    workers = max(1, Syscalls.processorCount)
    _ = Self.umaskBits  // read on this thread, before any worker creates files (reading it sets it briefly)
  }

  deinit { running?.group.wait() }

  /// Queues a file; may hand out a full batch (and report a failure from the previous one).
  func add(_ job: FileJob) throws {
    batchBytes += job.data.count
    batch.append(job)
    if batch.count >= Self.batchFiles || batchBytes >= Self.batchLimit { try flush() }
  }

  /// Hands out what is queued, after the previous batch is done.
  func flush() throws {
    try wait()
    guard !batch.isEmpty else { return }
    let jobs = batch
    batch = []
    batchBytes = 0
    let group = DispatchGroup()
    let errors = ErrorSlot()
    let workers = min(self.workers, jobs.count)
    let archive = self.archive
    for worker in 0..<workers {
      DispatchQueue.global().async(group: group) {
        var index = worker
        while index < jobs.count {
          do { try Self.create(jobs[index], archive: archive) } catch { errors.record(error, at: index) }
          index += workers
        }
      }
    }
    running = (group, errors)
  }

  /// Waits for every file handed out; throws the first failure.
  func wait() throws {
    guard let running else { return }
    self.running = nil
    running.group.wait()
    if let error = running.errors.first { throw error }
  }

  /// The process's umask, read once.
  static let umaskBits: CInterop.Mode = Syscalls.processUmask

  /// Creates one file: `O_EXCL | O_NOFOLLOW` in its directory, contents, mode, time.
  static func create(_ job: FileJob, archive: String) throws {
    // Created with its final mode when the umask keeps all of it (one `fchmod` fewer); the
    // descriptor stays writable whatever the mode.
    let exact = job.mode & Self.umaskBits == 0
    let fd: CInt
    do {
      fd = try Syscalls.openFile(
        in: job.parent.fd, RawName(entryName: job.name), [.writeOnly, .create, .exclusive, .noFollow],
        mode: exact ? job.mode : 0o600)
    } catch {
      throw PackageError.io(error, "cannot create", path: job.path, context: "in '\(archive)'")
    }
    defer { Syscalls.closeFile(fd) }
    do {
      if !job.data.isEmpty { try job.data.withUnsafeBytes { try Syscalls.writeAll(fd, $0) } }
      if !exact { try Syscalls.setMode(fd, job.mode) }
      if let time = job.time { try Syscalls.setModificationTime(fd, time) }
    } catch {
      throw PackageError(.io, "cannot write", path: job.path, context: "in '\(archive)'", errno: error as? Errno)
    }
  }
}

/// The first error of a batch (by job order), recorded from any worker.
private final class ErrorSlot: @unchecked Sendable {
  private let lock = SystemLock()
  private var error: (index: Int, error: any Error)?

  func record(_ error: any Error, at index: Int) {
    lock.withLock {
      if self.error == nil || index < self.error!.index { self.error = (index, error) }
    }
  }

  var first: (any Error)? { lock.withLock { error?.error } }
}
