import CArchive
import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of one zip entry read straight from the file: its local header, then its stored or
/// raw-deflated data (APPNOTE.TXT 4.3.7), checked against the central directory's CRC-32 and size.
///
/// Memory is bounded by the chunk size whatever the entry's size. Only entries ``ZipEntryLookup``
/// accepted come here: not encrypted, stored (0) or deflated (8).
final class ZipEntrySource: FileContentSource {
  /// The open archive, shared with the other entries' sources.
  private let file: ZipArchiveFile
  private let entry: ZipCentralDirectory.Entry
  /// The archive's path, for messages.
  private var archive: String { file.path }
  let size: Int64

  /// Where the entry's data starts, after its local header.
  private let dataStart: Int64

  /// Reads the entry's local header; `nil` if it is not there or names another entry (a zip with
  /// data before it, or a damaged one: the full reader decides).
  init?(file: ZipArchiveFile, entry: ZipCentralDirectory.Entry) {
    let offset = Int64(clamping: entry.localHeaderOffset)
    guard let header = try? Syscalls.readBytes(file.fd, at: offset, count: 30 + entry.name.count),
      header.count == 30 + entry.name.count,
      ZipCentralDirectory.u32(header, 0) == ZipRecords.localHeaderSignature,
      Int(ZipCentralDirectory.u16(header, 26)) == entry.name.count, header[30...].elementsEqual(entry.name)
    else { return nil }
    self.file = file
    self.entry = entry
    size = Int64(clamping: entry.size)
    dataStart = offset + 30 + Int64(entry.name.count) + Int64(ZipCentralDirectory.u16(header, 28))
  }

  /// Reads are `pread`s of the shared descriptor with state local to the call.
  var allowsConcurrentReads: Bool { true }

  func readAll() throws -> Data {
    var data = Data()
    data.reserveCapacity(Int(min(size, 1 << 24)))  // the size comes from the archive: do not trust it for memory
    try read(chunkSize: 1 << 20) { data.append(contentsOf: $0) }
    return data
  }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let chunk = max(1, min(chunkSize, 1 << 20))
    var remaining = Int64(clamping: entry.compressedSize)
    var position = dataStart
    var produced: UInt64 = 0
    var crc: UInt32 = 0
    func emit(_ bytes: UnsafeRawBufferPointer) throws {
      guard !bytes.isEmpty else { return }
      produced += UInt64(bytes.count)
      guard produced <= entry.size else { throw damaged("it holds more bytes than its header says") }
      crc = crc32(crc, bytes)
      try body(bytes)
    }
    // One buffer for the compressed input, read with `pread` from the shared descriptor.
    let inputSize = entry.method == 0 ? chunk : 256 << 10
    let inputBuffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: Int(max(1, min(Int64(inputSize), remaining))), alignment: 16)
    defer { inputBuffer.deallocate() }
    func input() throws -> UnsafeMutableRawBufferPointer {
      let want = Int(min(Int64(inputBuffer.count), remaining))
      guard want > 0 else { return UnsafeMutableRawBufferPointer(rebasing: inputBuffer[..<0]) }
      let room = UnsafeMutableRawBufferPointer(rebasing: inputBuffer[..<want])
      let count: Int
      do { count = try file.read(into: room, at: position) } catch {
        throw PackageError.io(error, "cannot read", path: archive)
      }
      guard count == want else { throw damaged("the archive ends inside its data") }
      position += Int64(want)
      remaining -= Int64(want)
      return room
    }
    if entry.method == 0 {
      while remaining > 0 { try emit(UnsafeRawBufferPointer(try input())) }
    } else {
      try inflate(chunk: chunk, input: input, emit: emit)
    }
    guard produced == entry.size else { throw damaged("it holds fewer bytes than its header says") }
    guard crc == entry.crc else { throw damaged("its CRC-32 does not match") }
  }

  /// Raw-inflates the data through zlib, `chunk` bytes of output at a time.
  private func inflate(
    chunk: Int, input: () throws -> UnsafeMutableRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    guard docpkg_inflate_init_raw(stream) == Z_OK else { throw damaged("zlib could not start") }
    defer { inflateEnd(stream) }
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
    defer { output.deallocate() }
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

  private func damaged(_ reason: String) -> PackageError {
    PackageError(
      .corrupt, "cannot read data of entry", path: EntryName.decodeZip(entry.name),
      context: "in '\(archive)': \(reason)")
  }
}
