import DocumentPackage
import SystemPackage

/// A zip's central directory read straight from the file (APPNOTE.TXT 4.3.12–4.3.16): where it is,
/// how many entries it lists, and each entry's name, sizes and local-header offset, without reading
/// any entry's data or building a tree.
///
/// The end-of-central-directory record is found in the file's last 64 KiB + 22 bytes (the largest
/// comment), and followed to the zip64 end record when a field is saturated. Entries are then
/// read in order from the central directory in bounded chunks: memory is O(1) in the entry count.
/// This is what gives an unpack of a zip its totals before the first entry is extracted.
struct ZipCentralDirectory {
  /// One central directory header, as far as the readers here need it.
  struct Entry {
    var name: [UInt8]
    var flags: UInt16
    var method: UInt16
    var crc: UInt32
    var compressedSize: UInt64
    var size: UInt64
    var localHeaderOffset: UInt64
    /// `st_mode` in the high 16 bits when made on Unix.
    var externalAttributes: UInt32
    /// The "version made by" field: the system that made the entry in its high byte (3 is Unix).
    var versionMadeBy: UInt16 = 0
    /// The data of the extra field's Info-ZIP Unicode Path (0x7075), which libarchive prefers to the name.
    var unicodePath: [UInt8]?
    /// What is wrong with the extra field, in words (see ``ZipExtraFields``): the entry is then damaged.
    var extraFieldProblem: String?
    /// A directory: its name ends in `/`.
    var isDirectory: Bool { name.last == UInt8(ascii: "/") }
  }

  let fd: CInt
  /// The number of entries the end record declares.
  let entryCount: Int
  let offset: Int64
  let size: Int64
  /// How many bytes come before the archive (see `init`): added to every local header offset.
  let localHeaderShift: UInt64

  /// How far from the end of the file libarchive looks for the end record (its seekable reader's window).
  static let endRecordWindow = 16 * 1024

  /// Finds the central directory of the zip open as `fd` (`fileSize` bytes); `nil` if there is no
  /// well-formed end record (not a zip, or a truncated one: the full reader then says why).
  init?(fd: CInt, fileSize: Int64) {
    self.fd = fd
    let tailSize = Int(min(fileSize, 22 + 0xFFFF))
    guard tailSize >= 22, let tail = try? Syscalls.readBytes(fd, at: fileSize - Int64(tailSize), count: tailSize),
      tail.count == tailSize
    else { return nil }
    // The end record as libarchive finds it: the last end signature in the file's last 16 KiB, which must be
    // for this one volume (disk numbers 0, every entry on it). Its comment must reach exactly to the end of the
    // file (libarchive does not ask; then it would read another archive's record than Python or Info-ZIP).
    var end: Int?
    var position = tailSize - 22
    while position >= max(0, tailSize - Self.endRecordWindow) {
      if Self.u32(tail, position) == ZipRecords.endSignature {
        end = position
        break
      }
      position -= 1
    }
    guard let end, end + 22 + Int(Self.u16(tail, end + 20)) == tailSize, Self.u16(tail, end + 4) == 0,
      Self.u16(tail, end + 6) == 0, Self.u16(tail, end + 8) == Self.u16(tail, end + 10)
    else { return nil }
    var count = UInt64(Self.u16(tail, end + 10))
    var directorySize = UInt64(Self.u32(tail, end + 12))
    var directoryOffset = UInt64(Self.u32(tail, end + 16))
    var shift: UInt64 = 0
    let endPosition = UInt64(fileSize) - UInt64(tailSize) + UInt64(end)
    if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
      // Zip64: the locator sits just before the end record and gives the zip64 end record's offset.
      let locatorPosition = fileSize - Int64(tailSize) + Int64(end) - 20
      guard locatorPosition >= 0, let locator = try? Syscalls.readBytes(fd, at: locatorPosition, count: 20),
        locator.count == 20, Self.u32(locator, 0) == ZipRecords.zip64LocatorSignature,
        Self.u32(locator, 4) == 0, Self.u32(locator, 16) == 1
      else { return nil }
      let recordOffset = Int64(bitPattern: Self.u64(locator, 8))
      guard let record = try? Syscalls.readBytes(fd, at: recordOffset, count: 56), record.count == 56,
        Self.u32(record, 0) == ZipRecords.zip64EndSignature, Self.u32(record, 16) == 0, Self.u32(record, 20) == 0,
        Self.u64(record, 24) == Self.u64(record, 32)
      else { return nil }
      count = Self.u64(record, 32)
      directorySize = Self.u64(record, 40)
      directoryOffset = Self.u64(record, 48)
    } else if directoryOffset + directorySize != endPosition {
      // Data before the archive (a self-extracting stub, a `cat`): every recorded offset is short by its
      // length. libarchive (and Python, and Info-ZIP) then take the directory to end at the end record and
      // shift every local header offset to match; so do we, when a central header is where that puts the
      // directory. Anything else (bytes between the directory and the end record, a directory that runs
      // past it) would make us read another archive than libarchive does: no directory.
      guard directoryOffset + directorySize < endPosition else { return nil }
      let adjusted = endPosition - directorySize
      if count > 0 {
        guard let signature = try? Syscalls.readBytes(fd, at: Int64(adjusted), count: 4), signature.count == 4,
          Self.u32(signature, 0) == ZipRecords.centralHeaderSignature
        else { return nil }
      }
      shift = adjusted - directoryOffset
      directoryOffset = adjusted
    }
    guard directoryOffset <= UInt64(fileSize), directorySize <= UInt64(fileSize) - directoryOffset,
      count <= directorySize / 46
    else { return nil }
    entryCount = Int(count)
    offset = Int64(directoryOffset)
    size = Int64(directorySize)
    localHeaderShift = shift
  }

  /// Calls `body` with each entry in directory order until it returns `false`.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `corrupt`) naming `archive` if a header is malformed.
  func forEach(archive: String, _ body: (Entry) throws -> Bool) throws {
    try forEachHeader(archive: archive) { try body($0.entry()) }
  }

  /// Calls `body` with each central directory header in directory order, as bytes in a reused buffer
  /// (valid only during the call, nothing copied), until it returns `false`.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `corrupt`) naming `archive` if a header is malformed.
  /// - Complexity: One pass; memory is one chunk of 1 MiB (or one header, if larger).
  func forEachHeader(archive: String, _ body: (Header) throws -> Bool) throws {
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
    defer { buffer.deallocate() }
    var start = 0  // of the unread part of `buffer`
    var filled = 0  // bytes of `buffer` holding data
    var fileOffset = offset  // of the byte after the data in `buffer`
    let endOffset = offset + size
    /// Whether `count` unread bytes are in `buffer`, reading more (and moving the unread part down) if needed.
    func need(_ count: Int) throws -> Bool {
      if filled - start >= count { return true }
      if count > buffer.count {
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
        larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<filled]))
        buffer.deallocate()
        buffer = larger
      } else {
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<filled]))
      }
      filled -= start
      start = 0
      while filled < count, fileOffset < endOffset {
        let room = UnsafeMutableRawBufferPointer(
          rebasing: buffer[filled..<(filled + Int(min(Int64(buffer.count - filled), endOffset - fileOffset)))])
        let read: Int
        do { read = try Syscalls.readBytes(fd, into: room, at: fileOffset) } catch {
          throw PackageError.io(error, "cannot read", path: archive)
        }
        if read == 0 { break }
        filled += read
        fileOffset += Int64(read)
      }
      return filled >= count
    }
    func damaged() -> PackageError {
      PackageError(.corrupt, "cannot read zip archive", path: archive, context: "(damaged central directory)")
    }
    for _ in 0..<entryCount {
      guard try need(46) else { throw damaged() }
      let fixed = Header(bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + 46)]), localHeaderShift: 0)
      guard fixed.u32(0) == ZipRecords.centralHeaderSignature else { throw damaged() }
      let total = 46 + fixed.nameLength + fixed.extraLength + Int(fixed.u16(32))
      guard try need(total) else { throw damaged() }
      let header = Header(
        bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + total)]), localHeaderShift: localHeaderShift)
      start += total
      guard try body(header) else { return }
    }
  }

  static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
  static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(u16(bytes, at)) | UInt32(u16(bytes, at + 2)) << 16
  }
  static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
    UInt64(u32(bytes, at)) | UInt64(u32(bytes, at + 4)) << 32
  }
}

extension ZipCentralDirectory {
  /// The entry count and the sum of the file entries' uncompressed sizes of the zip at `path`
  /// (`nil` if its central directory cannot be read: the unpack then reports no totals, and the
  /// full reader says what is wrong).
  static func totals(path: String) -> (entries: Int, bytes: Int64)? {
    guard let fd = try? Syscalls.openFile(FilePath(path), .readOnly) else { return nil }
    defer { Syscalls.closeFile(fd) }
    guard let size = try? Syscalls.status(of: fd).size, let directory = ZipCentralDirectory(fd: fd, fileSize: size)
    else { return nil }
    var bytes: Int64 = 0
    do {
      try directory.forEach(archive: path) { entry in
        if !entry.isDirectory, entry.externalAttributes >> 28 != 0xA { bytes += Int64(clamping: entry.size) }
        return true
      }
    } catch { return nil }
    return (directory.entryCount, bytes)
  }
}
