import CArchive
import DocumentPackage
import SystemPackage

/// What libarchive reads of a zip: the archive as ``ZipCentralDirectory`` found it, and nothing else.
///
/// libarchive finds a zip's end record on its own rules (the last 16 KiB only, no bytes before a zip64
/// archive, a forward scan for the directory), which refuse zips the common readers read: a long
/// comment, an executable before a zip64 archive, a wrong directory size. So it is shown the file's bytes
/// from where the archive starts (after any stub) to the end of its central directory, then end records
/// made from what ``ZipCentralDirectory`` found (``ZipCentralDirectory/endRecords``). Its offsets are
/// then exact, and libarchive reads the very entries that reading in place and the totals read.
///
/// Read with `pread` through one buffer of ``blockSize`` bytes; seekable (libarchive's zip reader seeks).
final class ZipArchiveView {
  /// The size of each read.
  static let blockSize = 1 << 20

  private let fd: CInt
  /// Where the archive starts in the file.
  private let start: Int64
  /// How many of the view's bytes come from the file (the rest are `tail`).
  private let fileBytes: Int64
  private let tail: [UInt8]
  private var position: Int64 = 0
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ZipArchiveView.blockSize, alignment: 16)
  /// The error of the last failed read, for the message.
  private(set) var failure: Errno?
  /// Whether the file ended before the archive did (it shrank since its directory was found).
  private(set) var shrank = false

  /// The view of `directory`'s archive, read from `fd` (not owned: it must outlive the view).
  init(fd: CInt, directory: ZipCentralDirectory) {
    self.fd = fd
    start = Int64(directory.localHeaderShift)
    fileBytes = directory.offset + directory.size - start
    // libarchive looks for the end record after the file's first byte only: an empty archive's gets one before it.
    tail = (directory.size == 0 ? [0] : []) + directory.endRecords
  }

  deinit { buffer.deallocate() }

  /// The view's length.
  var count: Int64 { fileBytes + Int64(tail.count) }

  /// Opens `handle` on the view. The view must outlive the handle.
  /// - Returns: libarchive's result code.
  func open(_ handle: OpaquePointer) -> CInt {
    docpkg_archive_read_set_callback_data(handle, Unmanaged.passUnretained(self).toOpaque())
    docpkg_archive_read_set_read_callback(handle) { _, data, pointer in
      guard let data, let pointer else { return -1 }
      return Unmanaged<ZipArchiveView>.fromOpaque(data).takeUnretainedValue().read(into: pointer)
    }
    docpkg_archive_read_set_seek_callback(handle) { _, data, offset, whence in
      guard let data else { return -1 }
      return Unmanaged<ZipArchiveView>.fromOpaque(data).takeUnretainedValue().seek(offset, whence: whence)
    }
    return docpkg_archive_read_open1(handle)
  }

  /// Reads the next block at the position into the buffer; its length (0 at the end), or -1.
  private func read(into pointer: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
    pointer.pointee = UnsafeRawPointer(buffer.baseAddress)
    if position < fileBytes {
      let want = Int(min(Int64(buffer.count), fileBytes - position))
      do {
        let read = try Syscalls.readBytes(
          fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]), at: start + position)
        guard read > 0 else {
          shrank = true
          return -1
        }
        position += Int64(read)
        return read
      } catch {
        failure = error
        return -1
      }
    }
    let from = Int(min(position - fileBytes, Int64(tail.count)))
    let length = min(tail.count - from, buffer.count)
    tail.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: length) }
    position += Int64(length)
    return length
  }

  /// Moves the position as `lseek` would; the new position, or -1.
  private func seek(_ offset: Int64, whence: CInt) -> Int64 {
    let base: Int64
    switch whence {
    case 0: base = 0  // SEEK_SET
    case 1: base = position  // SEEK_CUR
    case 2: base = count  // SEEK_END
    default: return -1
    }
    let (target, overflow) = base.addingReportingOverflow(offset)
    guard !overflow, target >= 0 else { return -1 }
    position = target
    return target
  }
}
