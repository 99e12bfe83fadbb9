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

/// Creates small files on a worker thread while the extractor reads and inflates the next ones,
/// so the file system's work overlaps libarchive's.
///
/// Built to keep its speed on a busy machine, where the first design (a barrier after every
/// batch of 256 files, striped over one worker per core) collapsed: the extractor waited at each
/// barrier for whichever worker the scheduler had preempted, and two workers creating files in
/// one directory contended for its lock in the kernel. Now:
/// - Jobs go in groups of consecutive files (at most ``groupFiles`` files or ``groupBytes``
///   bytes), claimed one at a time from a `FileWriterQueue` by whoever is free: no barrier, no
///   striping, and a group whose directory another thread is writing in waits for another.
/// - One worker fewer than the cores: the extractor's thread is the other one. When more than
///   ``queuedLimit`` groups are waiting (the workers are behind, or preempted), the extractor
///   creates a group itself instead of waiting, so its progress never depends on a thread the
///   scheduler is not running. With one core there is no worker: the extractor does it all.
/// Memory is bounded by ``queuedLimit`` + 1 groups.
final class FileWriterPool {
  private let archive: String
  private let queue: FileWriterQueue
  private var open = FileWriterQueue.Group()
  private var nextIndex = 0

  static let groupFiles = 64
  static let groupBytes = 1 << 20
  static let queuedLimit = 8

  /// - Parameter workers: Threads besides the caller's; by default one fewer than the processors.
  init(archive: String, workers: Int = Syscalls.processorCount - 1) {
    self.archive = archive
    queue = FileWriterQueue(workers: max(0, workers), archive: archive)
    _ = Self.umaskBits  // read on this thread, before any worker creates files (reading it sets it briefly)
  }

  deinit { queue.finish() }

  /// Queues a file; creates a group on this thread when the workers are behind.
  /// - Throws: The first failure so far (in job order), if any.
  func add(_ job: FileJob) throws {
    open.add(job, index: nextIndex)
    nextIndex += 1
    if open.jobs.count >= Self.groupFiles || open.bytes >= Self.groupBytes { try flush() }
  }

  /// Hands out the group being filled, and helps while too many groups are waiting.
  /// - Throws: The first failure so far (in job order), if any.
  func flush() throws {
    if !open.jobs.isEmpty {
      queue.enqueue(open)
      open = FileWriterQueue.Group()
    }
    queue.help(whileMoreThan: Self.queuedLimit)
    try queue.check()
  }

  /// Creates what is left on this thread too, and waits for every file handed out.
  /// - Throws: The first failure (in job order), if any.
  func wait() throws {
    if !open.jobs.isEmpty {
      queue.enqueue(open)
      open = FileWriterQueue.Group()
    }
    queue.help(whileMoreThan: 0)
    try queue.check()
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
