import CArchive
import DocumentPackage

/// One read of a zip entry's contents (APPNOTE.TXT 4.3.7), with buffers borrowed from its archive
/// (``ZipReadScratch``): stored data a block at a time; deflated data inflated whole by libdeflate
/// when it fits ``ZipReadScratch/wholeEntryLimit``, streamed through zlib otherwise. Every byte is
/// checked against the central directory's size and CRC-32 (after `body` has seen it: a caller that
/// stops at a difference stops reading).
///
/// Only entries ``ZipEntryLookup`` or the central-directory tree accepted come here: not encrypted,
/// stored (0) or deflated (8).
struct ZipEntryReading {
  let file: ZipArchiveFile
  let entry: ZipCentralDirectory.Entry
  let chunkSize: Int
  let body: (UnsafeRawBufferPointer) throws -> Void

  private var produced: UInt64 = 0
  private var crc: UInt32 = 0

  private init(
    file: ZipArchiveFile, entry: ZipCentralDirectory.Entry, chunkSize: Int,
    body: @escaping (UnsafeRawBufferPointer) throws -> Void
  ) {
    self.file = file
    self.entry = entry
    self.chunkSize = max(1, min(chunkSize, 1 << 20))
    self.body = body
  }

  /// Reads `entry` of `file`, handing `body` chunks of at most `chunkSize` bytes (at most 1 MiB). Its
  /// data starts at `dataStart`, or, if `nil`, after its local header, read in the same `pread` as
  /// the start of the data.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the entry and the archive: the local header
  ///   is missing, the data is damaged, or its size or CRC-32 is not the central directory's; or
  ///   what `body` throws.
  static func read(
    _ entry: ZipCentralDirectory.Entry, of file: ZipArchiveFile, dataStart: Int64?, chunkSize: Int,
    _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    try withoutActuallyEscaping(body) { body in
      try file.withScratch { scratch in
        var reading = ZipEntryReading(file: file, entry: entry, chunkSize: chunkSize, body: body)
        try reading.run(dataStart: dataStart, scratch: scratch)
      }
    }
  }

  private mutating func run(dataStart knownStart: Int64?, scratch: ZipReadScratch) throws {
    let compressed = Int64(clamping: entry.compressedSize)
    let input = scratch.input
    // `prefix` bytes of data sit in `input` from `dataOffset`; the rest is in the file from `position`.
    // Every read lands at the same offset within a page as its bytes have in the file (`placed`).
    var dataOffset = 0
    var prefix = 0
    var position: Int64
    if let knownStart {
      position = knownStart
    } else {
      let headerOffset = Int64(clamping: entry.localHeaderOffset)
      // The local extra field is usually short: read some room for it and the data in one go.
      let base = Self.placed(headerOffset)
      let want = Int(min(Int64(input.count - base), Int64(30 + entry.name.count + 64) + compressed))
      let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: input[base..<(base + want)]), at: headerOffset)
      var header = UnsafeRawBufferPointer(rebasing: input[base..<(base + count)])
      var wholeHeader: [UInt8] = []
      if let length = ZipLocalHeader.length(ofHeaderStartingWith: header), length > count {
        wholeHeader = try file.readBytes(count: length, at: headerOffset)
      }
      let start = try wholeHeader.withUnsafeBytes { whole in
        if !whole.isEmpty { header = whole }
        return try ZipLocalHeader.check(header, against: entry, archive: file.path)
      }
      dataOffset = base + start
      prefix = Int(max(0, min(Int64(count - start), compressed)))
      position = headerOffset + Int64(start) + Int64(prefix)
    }
    let dataEnd = position - Int64(prefix) + compressed
    var remaining = compressed - Int64(prefix)

    if entry.method == 0 {
      try emit(UnsafeRawBufferPointer(rebasing: input[dataOffset..<(dataOffset + prefix)]))
      while remaining > 0 {
        let block = try readBlock(at: position, remaining: remaining, into: input)
        position += Int64(block.count)
        remaining -= Int64(block.count)
        try emit(UnsafeRawBufferPointer(block))
      }
    } else if compressed <= ZipReadScratch.wholeEntryLimit, entry.size <= ZipReadScratch.wholeEntryLimit,
      let decompressor = scratch.decompressor
    {
      // All the deflated data in `input` (after what the first read brought), inflated in one call.
      if prefix == 0 { dataOffset = Self.placed(position) }
      if remaining > 0 {
        let start = dataOffset + prefix
        let room = UnsafeMutableRawBufferPointer(rebasing: input[start..<(start + Int(remaining))])
        let count = try read(into: room, at: position)
        guard count == Int(remaining) else { throw damaged("the archive ends inside its data") }
      }
      let output = scratch.output
      var actual = 0
      let result = libdeflate_deflate_decompress(
        decompressor, input.baseAddress! + dataOffset, Int(compressed), output.baseAddress!, Int(entry.size),
        &actual)
      switch result {
      case LIBDEFLATE_SUCCESS: break
      case LIBDEFLATE_INSUFFICIENT_SPACE: throw damaged("it holds more bytes than its header says")
      default: throw damaged("its deflated data is damaged")
      }
      try emit(UnsafeRawBufferPointer(rebasing: output[..<actual]))
    } else {
      var pending = prefix
      let reader = self  // for reads while `inflate` mutates `self`
      try inflate(scratch: scratch) {
        if pending > 0 {
          defer { pending = 0 }
          return UnsafeMutableRawBufferPointer(rebasing: input[dataOffset..<(dataOffset + pending)])
        }
        guard remaining > 0 else { return UnsafeMutableRawBufferPointer(rebasing: input[..<0]) }
        let block = try reader.readBlock(at: position, remaining: remaining, into: input)
        position += Int64(block.count)
        remaining -= Int64(block.count)
        return block
      }
    }
    guard produced == entry.dataSize else { throw damaged("it holds fewer bytes than its header says") }
    guard crc == entry.crc else { throw damaged("its CRC-32 does not match") }
    if entry.flags & ZipRecords.dataDescriptorFlag != 0 {
      let descriptor = try file.readBytes(count: 24, at: dataEnd)
      try descriptor.withUnsafeBytes { try ZipLocalHeader.checkDescriptor($0, against: entry, archive: file.path) }
    }
  }

  /// Where in a page-aligned buffer to read bytes that start at `offset` of the file: at the same
  /// offset within a page. The kernel's copy from the page cache is up to four times slower when the
  /// destination sits a little after the source modulo 4 KiB (measured: 4 KiB aliasing of loads and stores).
  static func placed(_ offset: Int64) -> Int { Int(offset & Int64(ZipReadScratch.alignment - 1)) }

  /// Reads the next block of data, at most `remaining` bytes from `position`, into `input`.
  private func readBlock(
    at position: Int64, remaining: Int64, into input: UnsafeMutableRawBufferPointer
  ) throws -> UnsafeMutableRawBufferPointer {
    let start = Self.placed(position)
    let want = Int(min(Int64(input.count - start), remaining))
    let block = UnsafeMutableRawBufferPointer(rebasing: input[start..<(start + want)])
    let count = try read(into: block, at: position)
    guard count == want else { throw damaged("the archive ends inside its data") }
    return block
  }

  /// Hands `bytes` to `body` in chunks of at most `chunkSize`, counting them and updating the CRC-32.
  private mutating func emit(_ bytes: UnsafeRawBufferPointer) throws {
    var start = 0
    while start < bytes.count {
      let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + chunkSize)])
      start += piece.count
      produced += UInt64(piece.count)
      guard produced <= entry.dataSize else { throw damaged("it holds more bytes than its header says") }
      crc = crc32(crc, piece)
      try body(piece)
    }
  }

  /// Raw-inflates the data through zlib into the scratch's output, `chunkSize` bytes at a time.
  private mutating func inflate(
    scratch: ZipReadScratch, input: () throws -> UnsafeMutableRawBufferPointer
  ) throws {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    guard docpkg_inflate_init_raw(stream) == Z_OK else { throw damaged("zlib could not start") }
    defer { inflateEnd(stream) }
    let chunk = chunkSize
    let output = UnsafeMutableRawBufferPointer(rebasing: scratch.output[..<chunk])
    var finished = false
    while !finished {
      if stream.pointee.avail_in == 0 {
        let bytes = try input()
        if bytes.isEmpty { throw damaged("its deflated data ends early") }
        stream.pointee.next_in = bytes.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(bytes.count)
      }
      repeat {
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(chunk)
        let result = CArchive.inflate(stream, Z_NO_FLUSH)
        guard result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR else {
          throw damaged("its deflated data is damaged")
        }
        try emit(UnsafeRawBufferPointer(rebasing: output[..<(chunk - Int(stream.pointee.avail_out))]))
        if result == Z_STREAM_END {
          finished = true
          break
        }
        if result == Z_BUF_ERROR, stream.pointee.avail_in > 0, stream.pointee.avail_out > 0 {
          throw damaged("its deflated data is damaged")
        }
      } while stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0
    }
  }

  /// Fills `buffer` from `offset` of the archive; fewer bytes only at its end.
  private func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
    do { return try file.read(into: buffer, at: offset) } catch {
      throw PackageError.io(error, "cannot read", path: file.path)
    }
  }

  private func damaged(_ reason: String) -> PackageError {
    PackageError(
      .corrupt, "cannot read data of entry", path: entry.decodedName,
      context: "in '\(file.path)': \(reason)")
  }
}
