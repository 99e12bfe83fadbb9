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
final class StreamWriter: @unchecked Sendable {
  static let bufferSize = 1 << 20
  static let bufferCount = 4

  private let queue = DispatchQueue(label: "docpkg.unpack.writer")
  private let free = DispatchSemaphore(value: StreamWriter.bufferCount)
  private let buffers: [UnsafeMutableRawBufferPointer]
  private var freeIndexes: [Int]
  private let lock = DispatchSemaphore(value: 1)
  private var failure: (any Error)?
  private let archive: String

  init(archive: String) {
    self.archive = archive
    buffers = (0..<Self.bufferCount).map { _ in .allocate(byteCount: Self.bufferSize, alignment: 64) }
    freeIndexes = Array(0..<Self.bufferCount)
  }

  deinit {
    queue.sync {}
    for buffer in buffers { buffer.deallocate() }
  }

  /// Queues `bytes` to be appended to `file`; blocks while every buffer is in use.
  /// - Throws: The first write failure so far.
  func append(_ bytes: UnsafeRawBufferPointer, to file: OpenFile) throws {
    var offset = 0
    while offset < bytes.count {
      try check()
      free.wait()
      lock.wait()
      let index = freeIndexes.removeLast()
      lock.signal()
      let count = min(Self.bufferSize, bytes.count - offset)
      let buffer = buffers[index]
      buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
      offset += count
      queue.async {
        do { try Syscalls.writeAll(file.fd, UnsafeRawBufferPointer(rebasing: self.buffers[index][..<count])) } catch {
          self.record(
            PackageError(.io, "cannot write", path: file.path, context: "in '\(self.archive)'", errno: error as? Errno))
        }
        self.lock.wait()
        self.freeIndexes.append(index)
        self.lock.signal()
        self.free.signal()
      }
    }
  }

  /// Queues the last step for `file` (mode, time), after its data.
  func finish(_ file: OpenFile, mode: CInterop.Mode, time: FileTime?) {
    queue.async {
      do {
        try Syscalls.setMode(file.fd, mode)
        if let time { try Syscalls.setModificationTime(file.fd, time) }
      } catch {
        self.record(
          PackageError(
            .io, "cannot set attributes of", path: file.path, context: "in '\(self.archive)'", errno: error as? Errno))
      }
    }
  }

  /// Waits until everything queued is written; throws the first failure.
  func wait() throws {
    queue.sync {}
    try check()
  }

  private func record(_ error: any Error) {
    lock.wait()
    if failure == nil { failure = error }
    lock.signal()
  }

  private func check() throws {
    lock.wait()
    let error = failure
    lock.signal()
    if let error { throw error }
  }
}
