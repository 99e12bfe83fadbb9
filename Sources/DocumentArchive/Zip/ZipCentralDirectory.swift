import DocumentPackage
import SystemPackage

/// A zip's central directory read straight from the file (APPNOTE.TXT 4.3.12–4.3.16): where it is,
/// how many entries it lists, and each entry's name, sizes and local-header offset, without reading
/// any entry's data or building a tree.
///
/// Entries are read in order from the central directory in bounded chunks: memory is O(1) in the entry
/// count. This is what gives an unpack of a zip its totals before the first entry is extracted, what
/// reading in place lists, and what libarchive is shown (``ZipArchiveView``): every reader here reads
/// the directory found by `init`, so what `inspect` lists is what `unpack` writes.
///
/// ## Finding the directory as the common readers do
/// Python's `zipfile` (`_EndRecData`, `_RealGetContents`), Go's `archive/zip` (`readDirectoryEnd`),
/// Info-ZIP's `unzip` (`find_ecrec`, `extra_bytes`) and libarchive (`archive_read_format_zip_seekable_bid`,
/// `slurp_central_directory`) agree on most of it; where they differ, the majority decides:
/// 1. The end record is the last end signature in the file's last 64 KiB + 22 bytes whose 22 bytes fit in
///    the file (Python, Go, unzip; libarchive looks in 16 KiB only, so a long comment defeated it).
///    Bytes after its comment (junk, an appended signature) are ignored, as all four ignore them.
/// 2. Its disk numbers and its entry counts are ignored: the entries are the central headers in the
///    directory's bytes, read until its size is used up (Python; libarchive reads headers until the end
///    record; Info-ZIP and 7-Zip list them all with an error for a wrong count; Go alone refuses a wrong
///    count). libarchive refused a fuzzed zip whose directory sat on "disk 146", which the other three and
///    bsdtar's streaming reader list: it is listed, and its damaged entries refused, as they are.
/// 3. Zip64: the locator right before the end record, for one volume (Python and libarchive refuse more);
///    the zip64 end record right before the locator (where Python looks for it, which holds after a stub
///    too) or else where the locator says (Go, libarchive; a record with extensible data). They are
///    looked for whatever the end record holds (Python, unzip): Info-ZIP's `zip` writes them with real
///    values in the end record; the zip64 record's values replace only the saturated ones.
/// 4. The directory ends where the (zip64) end record starts, so it starts `size` bytes before; the
///    bytes before the archive (a self-extractor's stub, a `cat stub a.zip`) are that start minus the
///    recorded offset, added to every recorded offset (Python's `concat`, Go's `baseOffset`, unzip's
///    `extra_bytes`, libarchive's `correction`).
/// 5. If no central header is there but one is at the recorded offset, and the recorded number of
///    headers from it ends exactly at the end record, the size field alone is wrong: the directory is
///    read from its recorded offset with no bytes before the archive (Go, unzip and libarchive read
///    such a zip; Python does not). Bytes between the directory and the end record stay refused
///    (Python and libarchive refuse them, Go and unzip read them: a tie, and refusing is the safe side).
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
    /// The name, decoded as ``EntryName/decodeZip(_:madeOnUnix:)`` says.
    var decodedName: String { EntryName.decodeZip(name, madeOnUnix: versionMadeBy >> 8 == 3) }
    /// The data of the extra field's Info-ZIP Unicode Path (0x7075), which libarchive prefers to the name.
    var unicodePath: [UInt8]?
    /// What is wrong with the extra field, in words (see ``ZipExtraFields``): the entry is then damaged.
    var extraFieldProblem: String?
    /// A directory: its name ends in `/`.
    var isDirectory: Bool { name.last == UInt8(ascii: "/") }
    /// The bytes its data gives (see ``ZipCentralDirectory/dataSize(method:flags:size:compressedSize:)``).
    var dataSize: UInt64 {
      ZipCentralDirectory.dataSize(method: method, flags: flags, size: size, compressedSize: compressedSize)
    }
  }

  /// How many bytes an entry's data gives: its stated size, except for a stored entry (not encrypted) that
  /// states a multiple of 4 GiB more than it stores (libarchive's `uncompressed_size_off_by_4gib` test
  /// archive; the slip of a writer that counts in 32 bits). Its data can only be the bytes stored: Python's
  /// zipfile (the smaller of the two sizes) and Info-ZIP's `unzip` ("continuing with compressed size")
  /// write them, their CRC-32 checked, and libarchive 3.6, comparing the low 32 bits of the sizes, reads
  /// them (bsdtar then pads the file with zeros to the stated size; Go, and libarchive since 2026, refuse
  /// the entry). So every reader here lists, reads and writes the bytes stored: what `inspect` lists is
  /// what `unpack` writes. Any other difference stays damage, which every reader here refuses (libarchive
  /// 3.6 refuses it too, so an unpack could not write what a listing would show). The local header must
  /// still state the same sizes as the central directory (``ZipLocalHeader``).
  static func dataSize(method: UInt16, flags: UInt16, size: UInt64, compressedSize: UInt64) -> UInt64 {
    let offBy4GiB = size > compressedSize && (size - compressedSize) & 0xFFFF_FFFF == 0
    return method == ZipRecords.stored && flags & 1 == 0 && offBy4GiB ? compressedSize : size
  }

  let fd: CInt
  /// The number of entries the end record declares, at most one per 46 bytes of the directory: a hint
  /// for sizing tables and progress only, since the entries read are the headers in the directory's bytes
  /// (rule 2; a zip whose count is too low or too high lists every header it has, as Python lists it).
  let declaredEntryCount: Int
  /// Where the central directory starts in the file, and its length.
  let offset: Int64
  let size: Int64
  /// How many bytes come before the archive (see the type's description): added to every local header offset.
  let localHeaderShift: UInt64

  /// How far from the end of the file the end record may start: its 22 bytes and the longest comment.
  static let endRecordWindow = 22 + 0xFFFF

  /// Finds the central directory of the zip open as `fd` (`fileSize` bytes) as the type's description
  /// says; `nil` if there is none (not a zip, or a truncated or damaged one: the caller says so).
  init?(fd: CInt, fileSize: Int64) {
    self.fd = fd
    let tailSize = Int(min(fileSize, Int64(Self.endRecordWindow)))
    guard tailSize >= 22, let tail = try? Syscalls.readBytes(fd, at: fileSize - Int64(tailSize), count: tailSize),
      tail.count == tailSize
    else { return nil }
    // 1: the last end signature.
    var end: Int?
    var position = tailSize - 22
    while position >= 0 {
      if Self.u32(tail, position) == ZipRecords.endSignature {
        end = position
        break
      }
      position -= 1
    }
    guard let end else { return nil }
    var count = UInt64(Self.u16(tail, end + 10))
    var directorySize = UInt64(Self.u32(tail, end + 12))
    var directoryOffset = UInt64(Self.u32(tail, end + 16))
    let endPosition = UInt64(fileSize) - UInt64(tailSize) + UInt64(end)
    // Where the directory must end: the end record, or the zip64 end record.
    var directoryEnd = endPosition
    if let (recordPosition, record) = Self.zip64EndRecord(fd, before: endPosition) {
      // 3: zip64, whether or not the end record's fields are saturated (Info-ZIP's `zip` writes the
      // zip64 records with real values in the end record for an entry over 4 GiB, or when it cannot
      // seek, as when it reads standard input); its values stand in for the saturated ones.
      if count == 0xFFFF { count = Self.u64(record, 32) }
      if directorySize == 0xFFFF_FFFF { directorySize = Self.u64(record, 40) }
      if directoryOffset == 0xFFFF_FFFF { directoryOffset = Self.u64(record, 48) }
      directoryEnd = recordPosition
    } else if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
      return nil
    }
    guard count <= UInt64(Int.max), directoryOffset <= UInt64(fileSize) else { return nil }
    // 4: the directory ends where the end record starts; the difference from the recorded offset is
    // the bytes before the archive.
    let start: UInt64
    if directorySize <= directoryEnd, directoryEnd - directorySize >= directoryOffset,
      directorySize == 0 || Self.centralHeader(fd, at: directoryEnd - directorySize)
    {
      start = directoryEnd - directorySize
    } else if count > 0, directoryOffset < directoryEnd, count <= (directoryEnd - directoryOffset) / 46,
      Self.centralHeader(fd, at: directoryOffset),
      let length = Self.headersLength(fd, from: directoryOffset, count: count, limit: directoryEnd),
      directoryOffset + length == directoryEnd
    {
      // 5: the size field alone is wrong.
      start = directoryOffset
      directorySize = length
    } else {
      return nil
    }
    declaredEntryCount = Int(min(count, directorySize / 46))
    offset = Int64(start)
    size = Int64(directorySize)
    localHeaderShift = start - directoryOffset
  }

  /// The zip64 end record of the zip whose end record is at `endPosition` of `fd`, and where it starts
  /// (rule 3); `nil` if no locator for one volume is right before the end record, or no zip64 end
  /// record is where rule 3 looks.
  private static func zip64EndRecord(_ fd: CInt, before endPosition: UInt64) -> (UInt64, [UInt8])? {
    guard endPosition >= 20, let locator = try? Syscalls.readBytes(fd, at: Int64(endPosition - 20), count: 20),
      locator.count == 20, u32(locator, 0) == ZipRecords.zip64LocatorSignature,
      u32(locator, 4) == 0, u32(locator, 16) == 1
    else { return nil }
    let recorded = u64(locator, 8)
    var candidates: [UInt64] = endPosition >= 20 + 56 ? [endPosition - 20 - 56] : []
    if recorded < endPosition - 20, !candidates.contains(recorded) { candidates.append(recorded) }
    return candidates.lazy.compactMap({ candidate -> (UInt64, [UInt8])? in
      guard let record = try? Syscalls.readBytes(fd, at: Int64(candidate), count: 56), record.count == 56,
        u32(record, 0) == ZipRecords.zip64EndSignature, u32(record, 16) == 0, u32(record, 20) == 0
      else { return nil }
      return (candidate, record)
    }).first
  }

  /// Whether a central header signature is at `position` of `fd`.
  private static func centralHeader(_ fd: CInt, at position: UInt64) -> Bool {
    guard let bytes = try? Syscalls.readBytes(fd, at: Int64(position), count: 4), bytes.count == 4 else { return false }
    return u32(bytes, 0) == ZipRecords.centralHeaderSignature
  }

  /// The length of `count` central headers from `position` of `fd`, if they are all there before `limit`.
  /// - Complexity: One `pread` per header (only for a zip whose end record gives a wrong size).
  private static func headersLength(_ fd: CInt, from position: UInt64, count: UInt64, limit: UInt64) -> UInt64? {
    var at = position
    for _ in 0..<count {
      guard at + 46 <= limit, let fixed = try? Syscalls.readBytes(fd, at: Int64(at), count: 46), fixed.count == 46,
        u32(fixed, 0) == ZipRecords.centralHeaderSignature
      else { return nil }
      at += 46 + UInt64(u16(fixed, 28)) + UInt64(u16(fixed, 30)) + UInt64(u16(fixed, 32))
    }
    return at <= limit ? at - position : nil
  }

  /// The end records of the archive as libarchive is shown it (``ZipArchiveView``): this directory at
  /// its offset from the start of the archive, with no comment. Its counts are the declared one (libarchive
  /// reads headers until the end record, as rule 2 reads them until the directory's size).
  var endRecords: [UInt8] {
    ZipEnd.records(
      entryCount: declaredEntryCount, centralOffset: UInt64(offset) - localHeaderShift, centralSize: UInt64(size))
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
    // Rule 2: headers until the directory's bytes are used up, whatever the end record counts.
    var consumed: Int64 = 0
    while consumed < size {
      guard try need(46) else { throw damaged() }
      let fixed = Header(bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + 46)]), localHeaderShift: 0)
      guard fixed.u32(0) == ZipRecords.centralHeaderSignature else { throw damaged() }
      let total = 46 + fixed.nameLength + fixed.extraLength + Int(fixed.u16(32))
      guard try need(total) else { throw damaged() }
      let header = Header(
        bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + total)]), localHeaderShift: localHeaderShift,
        position: offset + consumed)
      start += total
      consumed += Int64(total)
      // Every reader cuts a name at a NUL (libarchive, Python, unzip): two entries could then be one name, and the
      // name written would not be the one stored. Refused, naming the entry, in every reader of the directory.
      if header.name.contains(0) {
        throw PackageError(
          .invalidName, "refusing unsafe entry",
          path: EntryName.decodeZip(Array(header.name), madeOnUnix: header.versionMadeBy >> 8 == 3),
          context: "in '\(archive)': its name has a NUL byte, where other readers cut the name")
      }
      // A name marked UTF-8 (flag bit 11) that is not: libarchive would refuse it naming neither entry nor cause.
      if header.u16(8) & 0x800 != 0, String(validating: header.name, as: UTF8.self) == nil {
        throw PackageError(
          .invalidName, "refusing unsafe entry", path: EntryName.decodeBytes(Array(header.name)),
          context: "in '\(archive)': its name is marked as UTF-8 (zip flag bit 11) but is not valid UTF-8")
      }
      guard try body(header) else { return }
    }
  }

  /// The entry whose central header starts at `position` (as ``Header/position`` gave it), read again.
  /// - Throws: ``/DocumentPackage/PackageError`` naming `archive` if it cannot be read or is no central header.
  func entry(at position: Int64, archive: String) throws -> Entry {
    func read(_ count: Int) throws -> [UInt8] {
      let bytes: [UInt8]
      do { bytes = try Syscalls.readBytes(fd, at: position, count: count) } catch {
        throw PackageError.io(error, "cannot read", path: archive)
      }
      guard bytes.count == count, Self.u32(bytes, 0) == ZipRecords.centralHeaderSignature else {
        throw PackageError(.corrupt, "cannot read zip archive", path: archive, context: "(changed since it was opened)")
      }
      return bytes
    }
    let fixed = try read(46)
    let bytes = try read(46 + Int(Self.u16(fixed, 28)) + Int(Self.u16(fixed, 30)) + Int(Self.u16(fixed, 32)))
    return bytes.withUnsafeBytes { Header(bytes: $0, localHeaderShift: localHeaderShift, position: position).entry() }
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
    var entries = 0
    var bytes: Int64 = 0
    do {
      try directory.forEach(archive: path) { entry in
        entries += 1
        if !entry.isDirectory, entry.externalAttributes >> 28 != 0xA { bytes += Int64(clamping: entry.dataSize) }
        return true
      }
    } catch { return nil }
    return (entries, bytes)
  }
}
