import CArchive

/// A raw-deflate compressor (zlib), reused across entries with `deflateReset` because setting one
/// up allocates a quarter of a megabyte. One per thread.
final class Deflater {
  private var stream = z_stream()
  let level: Int32

  init(level: Int) {
    self.level = Int32(level)
    let result = docpkg_deflate_init_raw(&stream, Int32(level))
    precondition(result == Z_OK, "deflateInit2 failed: \(result)")
  }

  deinit { deflateEnd(&stream) }

  /// Compresses all of `input` into a new array.
  func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
    deflateReset(&stream)
    let bound = Int(deflateBound(&stream, uLong(input.count)))
    var output = [UInt8](repeating: 0, count: bound)
    let written = output.withUnsafeMutableBytes { out -> Int in
      stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
      stream.avail_in = uInt(input.count)
      stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
      stream.avail_out = uInt(out.count)
      let result = deflate(&stream, Z_FINISH)
      precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
      return out.count - Int(stream.avail_out)
    }
    output.removeSubrange(written...)
    return output
  }

  /// Starts a stream compressed in pieces with ``compress(_:finish:into:)``.
  func reset() { deflateReset(&stream) }

  /// Compresses one piece of a stream, handing the output to `emit` in chunks.
  func compress(_ input: UnsafeRawBufferPointer, finish: Bool, into emit: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    let chunk = 1 << 16
    try withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 16) { out in
      stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
      stream.avail_in = uInt(input.count)
      while true {
        stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(chunk)
        let result = deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
        precondition(result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR, "deflate failed: \(result)")
        let produced = chunk - Int(stream.avail_out)
        if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: out[..<produced])) }
        if finish ? result == Z_STREAM_END : (stream.avail_in == 0 && stream.avail_out != 0) { return }
      }
    }
  }
}

/// CRC-32 as zip stores it.
func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
  guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
  return UInt32(CArchive.crc32_z(uLong(crc), base.assumingMemoryBound(to: Bytef.self), bytes.count))
}
