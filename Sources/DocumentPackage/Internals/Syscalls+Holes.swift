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

  /// Sets the size of `fd` (`ftruncate`): grows it with a hole, or cuts it. Nothing when it has that
  /// size already (after a copy that ends in data, as most do): some file systems refuse `ftruncate`
  /// (fusefat: EPERM), and a file written whole needs none.
  package static func setSize(_ fd: CInt, _ size: Int64) throws(Errno) {
    if try status(of: fd).size == size { return }
    _ = try retrying { ftruncate(fd, off_t(size)) }
  }

  /// Moves the offset of `fd` by `count` bytes, leaving a hole when written past the end.
  package static func skip(_ fd: CInt, _ count: Int64) throws(Errno) {
    _ = try retrying { lseek(fd, off_t(count), SEEK_CUR) }
  }
}

extension Syscalls {
  /// Hands over the first `size` bytes of `fd` in order, in chunks of at most `buffer.count` bytes,
  /// each with its offset: the `dataRanges` read (`pread`) into `buffer`, and the holes between and
  /// after them as zeros from a buffer of zeros, never read (`isHole` is then true). Stops early if the
  /// file ends inside a data range (it shrank).
  /// - Returns: How many bytes were handed over: `size`, or fewer if the file shrank.
  package static func readSparse(
    _ fd: CInt, size: Int64, dataRanges: [Range<Int64>], buffer: UnsafeMutableRawBufferPointer,
    _ body: (_ chunk: UnsafeRawBufferPointer, _ offset: Int64, _ isHole: Bool) throws -> Void
  ) throws -> Int64 {
    let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count, alignment: 16)
    zeros.initializeMemory(as: UInt8.self, repeating: 0)
    defer { zeros.deallocate() }
    var position: Int64 = 0
    func holes(to end: Int64) throws {
      while position < end {
        let count = Int(min(end - position, Int64(zeros.count)))
        try body(UnsafeRawBufferPointer(rebasing: zeros[..<count]), position, true)
        position += Int64(count)
      }
    }
    for range in dataRanges {
      try holes(to: range.lowerBound)
      while position < range.upperBound {
        let want = Int(min(range.upperBound - position, Int64(buffer.count)))
        let count = try readBytes(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]), at: position)
        if count == 0 { return position }
        try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]), position, false)
        position += Int64(count)
      }
    }
    try holes(to: size)
    return position
  }
}
