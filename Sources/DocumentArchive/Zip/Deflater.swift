import CArchive

/// A raw-deflate compressor (zlib), reused across entries with `deflateReset` because setting one
/// up allocates a quarter of a megabyte. One per thread.
final class Deflater {
  /// On the heap: zlib keeps a pointer back to the stream and refuses one that moved.
  private let stream: UnsafeMutablePointer<z_stream>
  let level: Int32

  init(level: Int) {
    self.level = Int32(level)
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    let result = docpkg_deflate_init_raw(stream, Int32(level))
    precondition(result == Z_OK, "deflateInit2 failed: \(result)")
  }

  deinit {
    deflateEnd(stream)
    stream.deallocate()
  }

  /// Compresses all of `input` into a new array.
  func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
    deflateReset(stream)
    let bound = Int(deflateBound(stream, uLong(input.count)))
    var output = [UInt8](repeating: 0, count: bound)
    let written = output.withUnsafeMutableBytes { out -> Int in
      stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
      stream.pointee.avail_in = uInt(input.count)
      stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
      stream.pointee.avail_out = uInt(out.count)
      let result = deflate(stream, Z_FINISH)
      precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
      return out.count - Int(stream.pointee.avail_out)
    }
    output.removeSubrange(written...)
    return output
  }

  /// Starts a stream compressed in pieces with ``compress(_:finish:into:)``.
  func reset() { deflateReset(stream) }

  /// Compresses one piece of a stream, handing the output to `emit` in chunks.
  func compress(_ input: UnsafeRawBufferPointer, finish: Bool, into emit: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    let chunk = 1 << 16
    try withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 16) { out in
      stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
      stream.pointee.avail_in = uInt(input.count)
      while true {
        stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(chunk)
        let result = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
        precondition(result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR, "deflate failed: \(result)")
        let produced = chunk - Int(stream.pointee.avail_out)
        if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: out[..<produced])) }
        if finish ? result == Z_STREAM_END : (stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0) { return }
      }
    }
  }
}

/// CRC-32 as zip stores it.
func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
  guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
  return UInt32(CArchive.crc32_z(uLong(crc), base.assumingMemoryBound(to: Bytef.self), bytes.count))
}

/// A whole-buffer raw-deflate compressor (libdeflate) for files prepared in memory. One per thread.
final class BufferCompressor {
  private let compressor: OpaquePointer

  init(level: Int) {
    compressor = libdeflate_alloc_compressor(Int32(min(max(level, 1), 12)))
  }

  deinit { libdeflate_free_compressor(compressor) }

  /// `input` deflated, or `nil` when that would not make it smaller.
  func compress(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
    guard input.count > 1, let base = input.baseAddress else { return nil }
    let limit = input.count - 1
    var output = [UInt8](unsafeUninitializedCapacity: limit) { buffer, count in
      count = libdeflate_deflate_compress(compressor, base, input.count, buffer.baseAddress, limit)
    }
    if output.isEmpty { return nil }
    output.reserveCapacity(0)
    return output
  }
}
