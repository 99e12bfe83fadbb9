import Dispatch
import DocumentPackage
import SystemPackage

/// An open file being written by ``StreamWriter``, closed when its last chunk is written.
final class OpenFile: @unchecked Sendable {
  let fd: CInt
  let path: String
  init(fd: CInt, path: String) {
    self.fd = fd
    self.path = path
  }
  deinit { Syscalls.closeFile(fd) }
}

/// Writes large files on a second thread, in order, from a few reused 1 MiB buffers: the
/// extractor copies each inflated chunk into a free buffer and goes on inflating while this
/// thread waits in `write`. Memory stays at ``bufferCount`` buffers whatever the file sizes.
///
/// Queued work holds the ``Buffers``, never the writer itself: so the writer's last release (and
/// its `deinit`, which waits for the queue) never happens on the queue, where waiting for it
/// would wait for itself. The buffers go when the writer and the last queued block are done.
final class StreamWriter: @unchecked Sendable {
  static let bufferSize = 1 << 20
  static let bufferCount = 4

  private let queue = DispatchQueue(label: "docpkg.unpack.writer")
  private let buffers = Buffers(count: StreamWriter.bufferCount, size: StreamWriter.bufferSize)
  private let archive: String

  init(archive: String) {
    self.archive = archive
  }

  deinit { queue.sync {} }

  /// Queues `bytes` to be appended to `file`; blocks while every buffer is in use.
  /// - Throws: The first write failure so far.
  func append(_ bytes: UnsafeRawBufferPointer, to file: OpenFile) throws {
    let buffers = buffers
    let archive = archive
    var offset = 0
    while offset < bytes.count {
      try buffers.check()
      let index = buffers.take()
      let count = min(Self.bufferSize, bytes.count - offset)
      let buffer = buffers.storage[index]
      buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
      offset += count
      queue.async {
        do { try Syscalls.writeAll(file.fd, UnsafeRawBufferPointer(rebasing: buffers.storage[index][..<count])) } catch
        {
          buffers.record(
            PackageError(.io, "cannot write", path: file.path, context: "in '\(archive)'", errno: error as? Errno))
        }
        buffers.give(back: index)
      }
    }
  }

  /// Queues a hole of `count` bytes in `file`, after what is queued for it: its offset moves on and
  /// nothing is written, so the file system allocates nothing there.
  func skip(_ count: Int64, in file: OpenFile) {
    let buffers = buffers
    let archive = archive
    queue.async {
      do throws(Errno) { try Syscalls.skip(file.fd, count) } catch {
        buffers.record(PackageError(.io, "cannot write", path: file.path, context: "in '\(archive)'", errno: error))
      }
    }
  }

  /// Queues the last step for `file` (its size, which ends it with a hole if its data stopped
  /// before; mode; time), after its data.
  func finish(_ file: OpenFile, size: Int64, mode: CInterop.Mode, time: FileTime?) {
    let buffers = buffers
    let archive = archive
    queue.async {
      do throws(Errno) { try Syscalls.setSize(file.fd, size) } catch {
        buffers.record(PackageError(.io, "cannot write", path: file.path, context: "in '\(archive)'", errno: error))
        return
      }
      // A durable unpack's `syncfs` before the rename waits for this data: start writing it now, so the
      // disk works while the next entries are extracted. Large files only: small ones (the writer
      // pool's) are left to `syncfs`, which writes many of them in few requests.
      Syscalls.startWriteback(file.fd)
      do {
        try Syscalls.setMode(file.fd, mode)
        if let time { try Syscalls.setModificationTime(file.fd, time) }
      } catch {
        buffers.record(
          PackageError(
            .io, "cannot set attributes of", path: file.path, context: "in '\(archive)'", errno: error as? Errno))
      }
    }
  }

  /// Waits until everything queued is written; throws the first failure.
  func wait() throws {
    queue.sync {}
    try buffers.check()
  }

  /// The reused buffers, which of them are free, and the first write failure: shared by the
  /// writer and its queued blocks.
  final class Buffers: @unchecked Sendable {
    let storage: [UnsafeMutableRawBufferPointer]
    private var freeIndexes: [Int]
    private let free: DispatchSemaphore
    private let lock = DispatchSemaphore(value: 1)
    private var failure: (any Error)?

    init(count: Int, size: Int) {
      storage = (0..<count).map { _ in .allocate(byteCount: size, alignment: 64) }
      freeIndexes = Array(0..<count)
      free = DispatchSemaphore(value: count)
    }

    deinit { for buffer in storage { buffer.deallocate() } }

    /// A free buffer's index; blocks until one is free.
    func take() -> Int {
      free.wait()
      lock.wait()
      defer { lock.signal() }
      return freeIndexes.removeLast()
    }

    func give(back index: Int) {
      lock.wait()
      freeIndexes.append(index)
      lock.signal()
      free.signal()
    }

    func record(_ error: any Error) {
      lock.wait()
      if failure == nil { failure = error }
      lock.signal()
    }

    func check() throws {
      lock.wait()
      let error = failure
      lock.signal()
      if let error { throw error }
    }
  }
}
