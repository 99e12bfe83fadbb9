import CArchive
import DocumentPackage
import SystemPackage

/// What libarchive does not tell about a tar's pax headers, found by reading the (decompressed)
/// tar stream's headers ourselves, once, before the entries are read:
/// - a pax `path` or `linkpath` whose value holds a NUL byte, which libarchive silently cuts at the
///   NUL (a name confusion: Go refuses such a header, and so do we);
/// - several pax extended headers before one entry, all well formed, which POSIX allows (the last
///   wins, as libarchive does) but libarchive reports with the warning "Ignoring malformed pax
///   extended attribute" — the one warning read as success, and only then;
/// - a pax size or owner that is not a number (`uid=15x7`), of which libarchive reads the digits before
///   the first other character (Go refuses the header, and so do we). A time is read as libarchive reads
///   it (`mtime=15x7` is 15, as GNU tar reads it; Python keeps the header's time; Go alone refuses);
/// - a GNU header's size: libarchive reports a GNU entry's "real size" field (bytes 483-494, meant for
///   sparse files) as the size of any entry, and headers written in star's layout with GNU's magic
///   hold a time there (a 14-byte file then reads as 2,176 bytes); Go, Python and GNU tar take the
///   size field for every entry but a sparse one;
/// - a Solaris sparse map (`SUN.holesdata`): such an entry stores its holes' bytes too, which libarchive reads
///   past but, until its 2025 fix (715f7ea, "Handle extra bytes after sparse entries"), does not skip: the next
///   header is then looked for inside the data ("Damaged tar archive"). Its data is read, not skipped
///   (see ``ArchiveReader``);
/// - a pax global header's `mtime` (`g`), which libarchive does not apply: GNU tar and Python's tarfile apply it to
///   every later entry whose own pax header gives no `mtime`, and so do we (bsdtar does not);
/// - the header's mode of an entry with a POSIX.1e access ACL (`SCHILY.acl.access`, star and GNU tar `--acls`):
///   libarchive puts the ACL's `group::` entry into the mode's group bits, where POSIX keeps the ACL's mask (the
///   header's, as GNU tar and Python read it, and as a file has it once its ACL is set);
/// - the bytes of a pax `path` or `linkpath` in UTF-8, which libarchive normalizes to NFC (`e` + U+0301 comes out
///   `é`): a name is kept byte for byte, as GNU tar, Python and Go keep it.
struct TarHeaderScan {
  /// What the scan saw before one entry (by its index among the entries libarchive returns).
  struct EntryInfo {
    var paxHeaders = 0
    var malformedPax = false
    var nulInPath = false
    /// Why a pax record's value cannot be read, when one cannot.
    var badValue: String?
    /// Whether that record is the size: where the entry's data ends, and the next header starts, is then unknown.
    var badSize = false
    /// The size field of a GNU header of a regular file that is not sparse.
    var gnuSize: Int64?
    /// A pax `SUN.holesdata` record: a Solaris sparse file, whose stored data holds its holes too.
    var solarisHoles = false
    /// Whether the entry's own pax header gives its `mtime`.
    var ownTime = false
    /// The `mtime` the entry's own pax header gives, where it is a well-formed pax time: read exactly, as
    /// libarchive does not for a time before 1970 with a fraction (`-1.5` comes from it as -1 s and 0.5 s).
    var paxTime: FileTime?
    /// The `mtime` of the pax global headers before the entry, if they gave one.
    var globalTime: FileTime?
    /// Whether the entry's pax header gives a POSIX.1e access ACL.
    var accessACL = false
    /// The permission bits of the entry's own header, where it has an access ACL.
    var headerMode: UInt32?
    /// The bytes of a pax `path` and `linkpath` that are not ASCII: libarchive gives them normalized to NFC.
    var paxPath: [UInt8]?
    var paxLinkpath: [UInt8]?

    /// The time the pax global headers give the entry: theirs, unless its own pax header gives one.
    var timeFromGlobalHeader: FileTime? { ownTime ? nil : globalTime }
  }

  /// What the scan saw, kept compact (a million entries of a GNU tar are a million of them): the entries that had
  /// pax headers (or a pax global time), by index; and every entry's GNU size, -1 for none.
  fileprivate struct Entries {
    var described: [Int: EntryInfo] = [:]
    var gnuSizes: [Int64] = []

    mutating func append(_ info: EntryInfo) {
      gnuSizes.append(info.gnuSize ?? -1)
      // Everything else comes from pax headers, local or global: an entry without is the empty info.
      if info.paxHeaders > 0 || info.globalTime != nil { described[gnuSizes.count - 1] = info }
    }
  }

  private let entries: Entries

  /// The most pax header bytes examined per header; a longer one is left to libarchive's judgement.
  static let maxPaxBytes = 1 << 20

  /// The info for entry `index`, if the scan reached it.
  func info(_ index: Int) -> EntryInfo? {
    guard index < entries.gnuSizes.count else { return nil }
    var info = entries.described[index] ?? EntryInfo()
    info.gnuSize = entries.gnuSizes[index] < 0 ? nil : entries.gnuSizes[index]
    return info
  }

  /// Scans the tar (or compressed tar) at `path`. Returns `nil` if it cannot be read to the end of
  /// its headers (libarchive will then report the damage).
  static func scan(path: String) -> TarHeaderScan? {
    guard (try? LibArchive.prepare(for: path)) != nil else { return nil }
    let fd: CInt
    do { fd = try Syscalls.openFile(FilePath(path), .readOnly) } catch { return nil }
    defer { Syscalls.closeFile(fd) }
    let handle = docpkg_archive_read_new()
    defer { docpkg_archive_read_free(handle) }
    docpkg_archive_read_support_format_raw(handle)
    docpkg_archive_read_support_filter_gzip(handle)
    docpkg_archive_read_support_filter_bzip2(handle)
    docpkg_archive_read_support_filter_xz(handle)
    docpkg_archive_read_support_filter_zstd(handle)
    var entry: OpaquePointer?
    guard docpkg_archive_read_open_fd(handle, fd, 1 << 20) == ARCHIVE_OK,
      docpkg_archive_read_next_header(handle, &entry) == ARCHIVE_OK
    else { return nil }
    var parser = Parser()
    while true {
      var buffer: UnsafeRawPointer?
      var size = 0
      var offset: Int64 = 0
      let result = docpkg_archive_read_data_block(handle, &buffer, &size, &offset)
      if result == ARCHIVE_EOF {
        parser.finish()
        break
      }
      guard result == ARCHIVE_OK else { return nil }
      if size > 0, let buffer { parser.feed(UnsafeRawBufferPointer(start: buffer, count: size)) }
      if parser.ended { break }
    }
    return parser.ended && !parser.failed ? TarHeaderScan(entries: parser.entries) : nil
  }

  /// A streaming parser of 512-byte tar blocks.
  private struct Parser {
    var entries = Entries()
    var ended = false
    /// A header's checksum did not match: the scan lost its way (or the archive is damaged).
    var failed = false
    private var pending = EntryInfo()
    private var header: [UInt8] = []
    /// Data bytes of the current entry still to skip (or, for a pax header, to collect), and padding.
    private var dataLeft = 0
    private var padding = 0
    private var collecting = false
    /// Whether the pax data being collected is a global header's (`g`).
    private var collectingGlobal = false
    private var paxData: [UInt8] = []
    /// The `mtime` the pax global headers so far give.
    private var globalTime: FileTime?
    private var zeroBlocks = 0
    /// The data size of an old GNU sparse entry whose extension headers are still to come.
    private var sparseData: Int?

    /// The stream ended: without its two zero blocks, an archive that ends between entries is whole
    /// enough (libarchive, GNU tar and Python read it); one that ends inside a header or data is not.
    mutating func finish() {
      if !ended, header.isEmpty, dataLeft == 0, padding == 0, sparseData == nil { ended = true }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
      var index = 0
      while index < bytes.count, !ended {
        if dataLeft > 0 {
          let take = min(dataLeft, bytes.count - index)
          if collecting { paxData.append(contentsOf: bytes[index..<index + take]) }
          dataLeft -= take
          index += take
          if dataLeft == 0, collecting { collectingGlobal ? finishGlobal() : finishPax() }
          continue
        }
        if padding > 0 {
          let take = min(padding, bytes.count - index)
          padding -= take
          index += take
          continue
        }
        // A whole header in the block read: judged where it lies, with nothing copied.
        if header.isEmpty, bytes.count - index >= 512 {
          handleHeader(UnsafeRawBufferPointer(rebasing: bytes[index..<index + 512]))
          index += 512
          continue
        }
        let take = min(512 - header.count, bytes.count - index)
        header.append(contentsOf: bytes[index..<index + take])
        index += take
        if header.count == 512 {
          let block = header
          header.removeAll(keepingCapacity: true)
          block.withUnsafeBytes { handleHeader($0) }
        }
      }
    }

    /// Judges one 512-byte header block.
    private mutating func handleHeader(_ header: UnsafeRawBufferPointer) {
      if let data = sparseData {
        // An old GNU sparse extension header: 21 more map entries, then "another follows" at byte 504.
        if header[504] == 0 {
          sparseData = nil
          dataLeft = data
          padding = (512 - data % 512) % 512
        }
        return
      }
      let blockSum = Self.byteSum(header)
      if blockSum == 0 {  // every byte 0
        zeroBlocks += 1
        if zeroBlocks == 2 { ended = true }
        return
      }
      zeroBlocks = 0
      // The checksum counts its own field as eight spaces.
      var sum = blockSum + 8 * 0x20
      for offset in 148..<156 { sum -= Int(header[offset]) }
      guard Self.size(header[148..<156]) == sum else {
        failed = true
        ended = true
        return
      }
      let size = Self.size(header[124..<136])
      let type = header[156]
      let isPax = type == UInt8(ascii: "x") || type == UInt8(ascii: "X")
      let isGlobal = type == UInt8(ascii: "g")
      let isMetadata = isPax || isGlobal || type == UInt8(ascii: "L") || type == UInt8(ascii: "K")
      // Only regular files (and metadata) carry data in the stream; links and directories do not.
      let carriesData =
        isMetadata || type == 0 || type == UInt8(ascii: "0") || type == UInt8(ascii: "7")
        || type == UInt8(ascii: "S") || type == UInt8(ascii: "1")
      dataLeft = carriesData ? max(0, size) : 0
      padding = (512 - dataLeft % 512) % 512
      collecting = (isPax || isGlobal) && dataLeft <= TarHeaderScan.maxPaxBytes
      collectingGlobal = isGlobal
      paxData.removeAll(keepingCapacity: true)
      if isGlobal {
        if dataLeft == 0 { finishGlobal() }
      } else if isPax {
        pending.paxHeaders += 1
        if !collecting { pending.malformedPax = true }
        if dataLeft == 0 { finishPax() }
      } else if !isMetadata {
        let gnuMagic = header.loadUnaligned(fromByteOffset: 257, as: UInt64.self) == Self.gnuMagic
        // (After a pax header, its `size` record is the size, as libarchive reads it.)
        if gnuMagic, pending.paxHeaders == 0, type == 0 || type == UInt8(ascii: "0") || type == UInt8(ascii: "7") {
          pending.gnuSize = Int64(size)
        }
        if gnuMagic, type == UInt8(ascii: "S"), header[482] != 0 {
          sparseData = dataLeft  // the data follows the extension headers
          dataLeft = 0
          padding = 0
        }
        pending.globalTime = globalTime
        if pending.accessACL { pending.headerMode = UInt32(Self.size(header[100..<108]) & 0o7777) }
        entries.append(pending)
        pending = EntryInfo()
      }
    }

    /// Checks the records of a pax header.
    private mutating func finishPax() {
      collecting = false
      var entry = pending
      let wellFormed = Self.forEachRecord(in: paxData) { key, value in
        if key.elementsEqual("SUN.holesdata".utf8) { entry.solarisHoles = true }
        if key.elementsEqual("mtime".utf8), !value.isEmpty {
          entry.ownTime = true
          entry.paxTime = Self.time(value)
        }
        if key.elementsEqual("SCHILY.acl.access".utf8), !value.isEmpty { entry.accessACL = true }
        if value.contains(where: { $0 >= 0x80 }) {
          if key.elementsEqual("path".utf8) { entry.paxPath = Array(value) }
          if key.elementsEqual("linkpath".utf8) { entry.paxLinkpath = Array(value) }
        }
        if key.elementsEqual("path".utf8) || key.elementsEqual("linkpath".utf8), value.contains(0) {
          entry.nulInPath = true
        }
        if entry.badValue == nil, let problem = Self.problem(key: key, value: value) {
          entry.badValue = problem
          entry.badSize = key.elementsEqual("size".utf8)
        }
      }
      if !wellFormed { entry.malformedPax = true }
      pending = entry
    }

    /// Reads a pax global header's records for its `mtime` (an empty value takes it back). Its other records are
    /// left to libarchive.
    private mutating func finishGlobal() {
      collecting = false
      collectingGlobal = false
      var time = globalTime
      _ = Self.forEachRecord(in: paxData) { key, value in
        if key.elementsEqual("mtime".utf8) { time = value.isEmpty ? nil : Self.time(value) ?? time }
      }
      globalTime = time
    }

    /// Calls `body` with the key and value of each record of pax data, `LENGTH KEY=VALUE\n` (LENGTH counting the
    /// whole record), up to the first malformed one.
    /// - Returns: Whether every record was well formed.
    static func forEachRecord(in data: [UInt8], _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) -> Bool {
      var start = 0
      while start < data.count {
        var cursor = start
        var length = 0
        while cursor < data.count, data[cursor] >= 0x30, data[cursor] <= 0x39, length < 1 << 30 {
          length = length * 10 + Int(data[cursor] - 0x30)
          cursor += 1
        }
        guard cursor > start, cursor < data.count, data[cursor] == 0x20, length > cursor - start,
          start + length <= data.count, data[start + length - 1] == 0x0A,
          let equals = data[(cursor + 1)..<(start + length - 1)].firstIndex(of: UInt8(ascii: "="))
        else { return false }
        body(data[(cursor + 1)..<equals], data[(equals + 1)..<(start + length - 1)])
        start += length
      }
      return true
    }

    /// A pax time, `SECONDS[.FRACTION]` with an optional `-`; `nil` if it is not one.
    static func time(_ value: ArraySlice<UInt8>) -> FileTime? {
      let negative = value.first == UInt8(ascii: "-")
      let text = negative ? value.dropFirst() : value
      let parts = text.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
      let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
      guard let whole = parts.first, !whole.isEmpty, whole.count <= 18, whole.allSatisfy(isDigit),
        parts.count == 1 || parts[1].allSatisfy(isDigit)
      else { return nil }
      let seconds = whole.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
      var nanoseconds: Int32 = 0
      if parts.count == 2 {
        let digits = parts[1].prefix(9)
        nanoseconds = digits.reduce(Int32(0)) { $0 * 10 + Int32($1 - 0x30) }
        for _ in digits.count..<9 { nanoseconds *= 10 }
      }
      // -1.5 is 1.5 s before the epoch: -2 s and 0.5 s after it.
      return FileTime(negative: negative, seconds: seconds, nanoseconds: nanoseconds)
    }

    /// What is wrong with a size or owner record's value, if anything: decimal digits. An empty value deletes
    /// the record. Times are not judged (see the type's description).
    static func problem(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>) -> String? {
      guard ["size", "uid", "gid"].contains(where: { key.elementsEqual($0.utf8) }), !value.isEmpty else { return nil }
      let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
      // Leading zeros do not count towards the 18 digits an Int64 surely holds (`size=000…05` is 5, as
      // libarchive, GNU tar and Python read it).
      let significant = value.drop { $0 == UInt8(ascii: "0") }
      if significant.count <= 18, value.allSatisfy(isDigit) { return nil }
      let shown = String(decoding: value.prefix(40), as: UTF8.self).unicodeScalars
        .map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
      return "its pax header's \(String(decoding: key, as: UTF8.self)) '\(shown)' is not a number"
    }

    /// GNU tar's magic and version fields, `"ustar  \0"`, as one word read from the header.
    static let gnuMagic = UInt64(littleEndian: 0x0020_2072_6174_7375)

    /// The sum of a header block's 512 bytes, eight at a time: each word's bytes added in pairs into 16-bit
    /// lanes (at most 2 × 255 each), and a block's 64 words into them (at most 64 × 510, below 2¹⁶), then the
    /// four lanes added up.
    static func byteSum(_ block: UnsafeRawBufferPointer) -> Int {
      let low: UInt64 = 0x00FF_00FF_00FF_00FF
      var lanes: UInt64 = 0
      for word in 0..<64 {
        let value = block.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)
        lanes &+= (value & low) &+ ((value >> 8) & low)
      }
      return Int(lanes & 0xFFFF) + Int(lanes >> 16 & 0xFFFF) + Int(lanes >> 32 & 0xFFFF) + Int(lanes >> 48)
    }

    /// A size field: octal digits after any spaces, or base-256 when the high bit of the first byte is set. A NUL
    /// ends it, even a leading one (`\0\0\0\0\0\0\0\0016\0` is 0 to Python, GNU tar and libarchive).
    static func size(_ field: Slice<UnsafeRawBufferPointer>) -> Int {
      // Plain loops over the bytes' offsets: a walk reads two or three fields of every header.
      let (bytes, start, end) = (field.base, field.startIndex, field.endIndex)
      guard start < end else { return 0 }
      var value = 0
      var offset = start
      if bytes[start] & 0x80 != 0 {
        offset += 1
        while offset < end {
          if value < 1 << 55 { value = value << 8 | Int(bytes[offset]) }
          offset += 1
        }
        return value
      }
      while offset < end {
        let byte = bytes[offset]
        offset += 1
        if byte == 0 { break }
        if byte == 0x20 { if value > 0 { break } else { continue } }
        guard byte >= 0x30, byte <= 0x37 else { break }
        value = value * 8 + Int(byte - 0x30)
      }
      return value
    }
  }
}
