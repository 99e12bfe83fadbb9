import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Sparse files: where a file's data is, and its size set without writing zeros, so that copies,
// version blobs and extracted files keep their holes (as `cp --sparse=auto` and bsdtar do).
extension Syscalls {
  /// The byte ranges of `fd` from `start` to `size` that hold data (`SEEK_DATA`/`SEEK_HOLE`), in
  /// order; everything between them reads as zeros. A file system that cannot tell holes reports one
  /// range, from `start` to `size`. Moves the file's offset.
  package static func dataRanges(_ fd: CInt, from start: Int64 = 0, size: Int64) throws(Errno) -> [Range<Int64>] {
    var ranges: [Range<Int64>] = []
    var position = start
    while position < size {
      let data = lseek(fd, off_t(position), DOCPKG_SEEK_DATA)
      if data < 0 {
        let error = currentErrno
        if error == .noSuchAddressOrDevice { break }  // ENXIO: only a hole remains
        if error == .invalidArgument || error == .notSupported { return [start..<size] }
        throw error
      }
      if Int64(data) >= size { break }
      let hole = lseek(fd, data, DOCPKG_SEEK_HOLE)
      if hole < 0 { throw currentErrno }
      let end = min(Int64(hole), size)
      ranges.append(Int64(data)..<end)
      position = end
    }
    return ranges
  }

  /// Sets the size of `fd` (`ftruncate`): grows it with a hole, or cuts it.
  package static func setSize(_ fd: CInt, _ size: Int64) throws(Errno) {
    _ = try retrying { ftruncate(fd, off_t(size)) }
  }

  /// Moves the offset of `fd` by `count` bytes, leaving a hole when written past the end.
  package static func skip(_ fd: CInt, _ count: Int64) throws(Errno) {
    _ = try retrying { lseek(fd, off_t(count), SEEK_CUR) }
  }
}
