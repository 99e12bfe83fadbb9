import DocumentPackage
import SystemPackage

/// A zip archive open for reading, shared by the entry sources of one tree: one descriptor, read
/// only with `pread` (no file position), so several threads may read different entries at once.
/// Closed when the last source that holds it goes.
///
/// It also keeps the read buffers (``ZipReadScratch``) that reads borrow: as many as reads have run
/// at once, at most ``sparesKept``.
final class ZipArchiveFile: @unchecked Sendable {
  /// The descriptor, owned: closed in `deinit`.
  let fd: CInt
  /// The archive's path, for messages.
  let path: String
  /// The most buffers kept between reads (one per worker of a comparison, with room to spare).
  static let sparesKept = 4
  /// Guards `spares`.
  private let lock = SystemLock()
  /// Buffers no read is using.
  private var spares: [ZipReadScratch] = []

  /// Takes ownership of `fd`.
  init(fd: CInt, path: String) {
    self.fd = fd
    self.path = path
  }

  /// Opens the archive at `path`.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the archive if it cannot be opened.
  convenience init(opening path: FilePath) throws {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, .readOnly) } catch {
      throw PackageError.io(error, "cannot open", path: path.string)
    }
    self.init(fd: fd, path: path.string)
  }

  deinit { Syscalls.closeFile(fd) }

  /// Runs `body` with read buffers no other read is using, kept for the next read afterwards.
  func withScratch<T>(_ body: (ZipReadScratch) throws -> T) rethrows -> T {
    let scratch = lock.withLock { spares.popLast() } ?? ZipReadScratch()
    defer {
      lock.withLock {
        if spares.count < Self.sparesKept { spares.append(scratch) }
      }
    }
    return try body(scratch)
  }

  /// Up to `count` bytes from `offset` (fewer only at the end of the file).
  /// - Throws: ``/DocumentPackage/PackageError`` naming the archive if it cannot be read.
  func readBytes(count: Int, at offset: Int64) throws -> [UInt8] {
    do { return try Syscalls.readBytes(fd, at: offset, count: count) } catch {
      throw PackageError.io(error, "cannot read", path: path)
    }
  }

  /// Fills `buffer` from `offset`; returns how many bytes were read (fewer only at the end of the file).
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
    var filled = 0
    while filled < buffer.count {
      let count = try Syscalls.readBytes(
        fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: offset + Int64(filled))
      if count == 0 { break }
      filled += count
    }
    return filled
  }
}
