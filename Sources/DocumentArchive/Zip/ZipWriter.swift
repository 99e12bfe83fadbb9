import DocumentPackage
import SystemPackage

/// Writes a zip archive to a file or a stream, entry by entry, then the central directory.
///
/// A streamed (large) file's CRC and sizes are known only after its data: on a seekable file they
/// are patched into its local header; on a pipe (`seekable` false) they follow the data in a data
/// descriptor (flag bit 3), which every zip reader, streaming ones included, understands.
///
/// Our own writer rather than libarchive's: libarchive's always adds extra fields (so an ODF or
/// EPUB `mimetype` entry cannot be written bare), writes local DOS times (so the bytes depend on
/// the time zone), and deflates on one core. Entries carry the Unix mode (exec bits, symbolic
/// links), a UTF-8 flag for non-ASCII names, an extended timestamp, and zip64 fields when needed.
final class ZipWriter {
  let fd: CInt
  let path: String
  private var buffer: [UInt8] = []
  private var offset: UInt64 = 0
  private var central = ByteBuffer()
  private var count = 0
  private let bufferLimit = 1 << 22
  /// Checked before each write to the file.
  var cancellation: ArchiveCancellation?
  /// Whether local headers may be patched (`pwrite`); if not, streamed entries get data descriptors.
  let seekable: Bool

  init(fd: CInt, path: String, seekable: Bool = true) {
    self.fd = fd
    self.path = path
    self.seekable = seekable
    buffer.reserveCapacity(bufferLimit + (1 << 16))
  }

  /// Writes an entry whose contents are already prepared (compressed or stored).
  func write(_ entry: PackEntry, prepared: PreparedFile?, bare: Bool = false) throws {
    var record = makeRecord(entry, bare: bare)
    if let prepared {
      record.crc = prepared.crc
      record.method = prepared.method
      record.size = UInt64(prepared.size)
      record.compressedSize = UInt64(prepared.payload.count)
    } else if entry.kind == .symlink {
      let target = RawByteNames.encode(entry.linkDestination)
      record.crc = target.withUnsafeBytes { crc32(0, $0) }
      record.size = UInt64(target.count)
      record.compressedSize = record.size
      try emit(record.localHeader())
      try emit(target)
      finishEntry(record)
      return
    }
    try emit(record.localHeader())
    if let prepared { try emit(prepared.payload) }
    finishEntry(record)
  }

  /// Writes a file entry whose contents `produce` streams, compressing with `deflater` unless
  /// `store`; the local header is patched once CRC and sizes are known.
  func writeStreamed(
    _ entry: PackEntry, deflater: Deflater?,
    produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    try flush()
    var record = makeRecord(entry, bare: false)
    record.method = deflater == nil ? ZipRecords.stored : ZipRecords.deflated
    record.localZip64 = entry.size >= 0xFFFF_0000
    if !seekable { record.flags |= ZipRecords.dataDescriptorFlag }
    let headerOffset = offset
    try emit(record.localHeader())
    var crc: UInt32 = 0
    var size: UInt64 = 0
    let dataStart = offset
    deflater?.reset()
    try produce { chunk in
      crc = crc32(crc, chunk)
      size += UInt64(chunk.count)
      if let deflater {
        try deflater.compress(chunk, finish: false) { try self.emit($0) }
      } else {
        try self.emit(chunk)
      }
    }
    if let deflater {
      try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { try self.emit($0) }
    }
    try flush()
    record.crc = crc
    record.size = size
    record.compressedSize = offset - dataStart
    if !record.localZip64, size >= ZipRecords.zip64Threshold || record.compressedSize >= ZipRecords.zip64Threshold {
      throw PackageError(.changedOnDisk, "file grew past 4 GiB while it was packed:", path: entry.name)
    }
    if !seekable {
      try emit(record.dataDescriptor())
      finishEntry(record)
      return
    }
    let patch = record.localSizesPatch()
    do {
      try patch.crcAndSizes.withUnsafeBytes { bytes in try Syscalls.writeAll(fd, bytes, at: Int64(headerOffset) + 14) }
      if let zip64 = patch.zip64 {
        try zip64.withUnsafeBytes { bytes in
          try Syscalls.writeAll(fd, bytes, at: Int64(headerOffset) + Int64(record.zip64PatchOffset))
        }
      }
    } catch {
      throw PackageError(.io, "cannot write", path: path, errno: error as? Errno)
    }
    finishEntry(record)
  }

  /// Writes the central directory and end records, and flushes.
  func finish() throws {
    let centralOffset = offset
    try emit(central.bytes)
    let centralSize = offset - centralOffset
    central = ByteBuffer()
    try emit(ZipEnd.records(entryCount: count, centralOffset: centralOffset, centralSize: centralSize))
    try flush()
  }

  private func makeRecord(_ entry: PackEntry, bare: Bool) -> ZipEntryRecord {
    var name = Array(entry.name.utf8)
    let fileType: UInt32
    switch entry.kind {
    case .directory:
      name.append(UInt8(ascii: "/"))
      fileType = 0o040000
    case .symlink: fileType = 0o120000
    case .file: fileType = 0o100000
    }
    let mode = entry.kind == .symlink ? 0o777 : entry.mode
    let isASCII = name.allSatisfy { $0 < 0x80 }
    let seconds = entry.modificationTime.seconds
    return ZipEntryRecord(
      name: name, flags: isASCII ? 0 : ZipRecords.utf8Flag, method: ZipRecords.stored,
      dosTime: DOSDateTime(seconds), crc: 0, compressedSize: 0, size: 0, localHeaderOffset: offset,
      externalAttributes: (fileType | mode) << 16 | (entry.kind == .directory ? 0x10 : 0),
      // A time before 1980 is written as 1980 in both fields, as the DOS field must: libarchive (bsdtar) reads
      // the extended timestamp unsigned, so a negative one would come back as 2106 there.
      unixTime: bare || seconds > Int64(Int32.max) ? nil : Int32(max(seconds, DOSDateTime.earliest)),
      localZip64: false)
  }

  private func finishEntry(_ record: ZipEntryRecord) {
    record.centralHeader(into: &central)
    count += 1
  }

  private func emit(_ bytes: [UInt8]) throws {
    if bytes.count >= bufferLimit {
      try flush()
      try bytes.withUnsafeBytes { try writeOut($0) }
    } else {
      buffer.append(contentsOf: bytes)
      if buffer.count >= bufferLimit { try flush() }
    }
    offset += UInt64(bytes.count)
  }

  private func emit(_ bytes: UnsafeRawBufferPointer) throws {
    buffer.append(contentsOf: bytes)
    offset += UInt64(bytes.count)
    if buffer.count >= bufferLimit { try flush() }
  }

  private func flush() throws {
    guard !buffer.isEmpty else { return }
    try buffer.withUnsafeBytes { try writeOut($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  private func writeOut(_ bytes: UnsafeRawBufferPointer) throws {
    try cancellation?.check(path)
    do throws(Errno) { try Syscalls.writeAll(fd, bytes) } catch {
      throw PackageError.io(error, "cannot write", path: path)
    }
  }
}

/// A file's contents ready to go in a zip: checksummed, and deflated unless that did not help.
struct PreparedFile: Sendable {
  var crc: UInt32
  var method: UInt16
  var payload: [UInt8]
  var size: Int64

  /// Checksums `bytes` and deflates them with `compressor`, keeping them stored when deflating does
  /// not make them smaller (images, already-compressed data).
  init(bytes: UnsafeRawBufferPointer, compressor: BufferCompressor?) {
    size = Int64(bytes.count)
    crc = crc32(0, bytes)
    if let compressor, let compressed = compressor.compress(bytes) {
      method = ZipRecords.deflated
      payload = compressed
      return
    }
    method = ZipRecords.stored
    payload = Array(bytes)
  }
}
