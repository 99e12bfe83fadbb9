import DocumentPackage

/// The zip format's records (APPNOTE.TXT 6.3), encoded little-endian.
enum ZipRecords {
  static let localHeaderSignature: UInt32 = 0x0403_4B50
  static let centralHeaderSignature: UInt32 = 0x0201_4B50
  static let endSignature: UInt32 = 0x0605_4B50
  static let zip64EndSignature: UInt32 = 0x0606_4B50
  static let zip64LocatorSignature: UInt32 = 0x0706_4B50

  static let stored: UInt16 = 0
  static let deflated: UInt16 = 8
  /// General purpose flag bit 3: CRC and sizes are in a data descriptor after the data.
  static let dataDescriptorFlag: UInt16 = 1 << 3
  static let dataDescriptorSignature: UInt32 = 0x0807_4B50
  /// General purpose flag bit 11: the name is UTF-8.
  static let utf8Flag: UInt16 = 1 << 11
  /// "Version made by": Unix (3) << 8, spec 6.3 (63), so readers honour the mode in the external attributes.
  static let madeByUnix: UInt16 = 0x033F
  /// Sizes at or above this go in a zip64 extra field.
  static let zip64Threshold: UInt64 = 0xFFFF_FFFF
}

/// What the central directory needs to know about an entry already written.
struct ZipEntryRecord {
  var name: [UInt8]
  var flags: UInt16
  var method: UInt16
  var dosTime: DOSDateTime
  var crc: UInt32
  var compressedSize: UInt64
  var size: UInt64
  var localHeaderOffset: UInt64
  /// `st_mode` in the high 16 bits, MS-DOS attributes in the low ones.
  var externalAttributes: UInt32
  /// Seconds since the epoch, for the extended-timestamp ("UT") field; `nil` writes none.
  var unixTime: Int32?
  /// The entry has a zip64 extra field in its local header.
  var localZip64: Bool

  var versionNeeded: UInt16 {
    if localZip64 || compressedSize >= ZipRecords.zip64Threshold || size >= ZipRecords.zip64Threshold
      || localHeaderOffset >= ZipRecords.zip64Threshold
    {
      return 45
    }
    return method == ZipRecords.deflated ? 20 : 10
  }
}

/// A growable little-endian byte buffer.
struct ByteBuffer {
  var bytes: [UInt8] = []

  init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

  mutating func u16(_ value: UInt16) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
  }

  mutating func u32(_ value: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
  }

  mutating func u64(_ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
  }

  mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }
}

extension ZipEntryRecord {
  /// The local file header. Its zip64 field (if any) holds placeholders that ``localSizesPatch``
  /// overwrites once the sizes are known.
  func localHeader() -> [UInt8] {
    var extra = ByteBuffer()
    if localZip64 {
      extra.u16(0x0001)
      extra.u16(16)
      extra.u64(size)
      extra.u64(compressedSize)
    }
    if let unixTime {
      extra.u16(0x5455)
      extra.u16(5)
      extra.bytes.append(1)
      extra.u32(UInt32(bitPattern: unixTime))
    }
    var header = ByteBuffer(capacity: 30 + name.count + extra.bytes.count)
    header.u32(ZipRecords.localHeaderSignature)
    header.u16(versionNeeded)
    header.u16(flags)
    header.u16(method)
    header.u16(dosTime.time)
    header.u16(dosTime.date)
    header.u32(crc)
    header.u32(localZip64 ? 0xFFFF_FFFF : UInt32(compressedSize))
    header.u32(localZip64 ? 0xFFFF_FFFF : UInt32(size))
    header.u16(UInt16(name.count))
    header.u16(UInt16(extra.bytes.count))
    header.append(name)
    header.append(extra.bytes)
    return header.bytes
  }

  /// The bytes to write at `localHeaderOffset + 14` once CRC and sizes are known (CRC and the two
  /// 32-bit sizes), and, for a zip64 entry, the bytes at ``zip64PatchOffset``.
  func localSizesPatch() -> (crcAndSizes: [UInt8], zip64: [UInt8]?) {
    var fixed = ByteBuffer()
    fixed.u32(crc)
    fixed.u32(localZip64 ? 0xFFFF_FFFF : UInt32(compressedSize))
    fixed.u32(localZip64 ? 0xFFFF_FFFF : UInt32(size))
    guard localZip64 else { return (fixed.bytes, nil) }
    var sizes = ByteBuffer()
    sizes.u64(size)
    sizes.u64(compressedSize)
    return (fixed.bytes, sizes.bytes)
  }

  /// The data descriptor written after a streamed entry's data on a stream that cannot be
  /// patched: signature, CRC, then compressed and uncompressed sizes (8 bytes each for a zip64 entry).
  func dataDescriptor() -> [UInt8] {
    var descriptor = ByteBuffer(capacity: 24)
    descriptor.u32(ZipRecords.dataDescriptorSignature)
    descriptor.u32(crc)
    if localZip64 {
      descriptor.u64(compressedSize)
      descriptor.u64(size)
    } else {
      descriptor.u32(UInt32(compressedSize))
      descriptor.u32(UInt32(size))
    }
    return descriptor.bytes
  }

  /// Where the zip64 field's two sizes start, relative to the local header.
  var zip64PatchOffset: Int { 30 + name.count + 4 }

  /// The central directory header.
  func centralHeader(into buffer: inout ByteBuffer) {
    var zip64 = ByteBuffer()
    if size >= ZipRecords.zip64Threshold || localZip64 { zip64.u64(size) }
    if compressedSize >= ZipRecords.zip64Threshold || localZip64 { zip64.u64(compressedSize) }
    if localHeaderOffset >= ZipRecords.zip64Threshold { zip64.u64(localHeaderOffset) }
    var extraCount = 0
    if !zip64.bytes.isEmpty { extraCount += 4 + zip64.bytes.count }
    if unixTime != nil { extraCount += 9 }

    buffer.u32(ZipRecords.centralHeaderSignature)
    buffer.u16(ZipRecords.madeByUnix)
    buffer.u16(versionNeeded)
    buffer.u16(flags)
    buffer.u16(method)
    buffer.u16(dosTime.time)
    buffer.u16(dosTime.date)
    buffer.u32(crc)
    buffer.u32(compressedSize >= ZipRecords.zip64Threshold || localZip64 ? 0xFFFF_FFFF : UInt32(compressedSize))
    buffer.u32(size >= ZipRecords.zip64Threshold || localZip64 ? 0xFFFF_FFFF : UInt32(size))
    buffer.u16(UInt16(name.count))
    buffer.u16(UInt16(extraCount))
    buffer.u16(0)  // comment
    buffer.u16(0)  // disk number
    buffer.u16(0)  // internal attributes
    buffer.u32(externalAttributes)
    buffer.u32(localHeaderOffset >= ZipRecords.zip64Threshold ? 0xFFFF_FFFF : UInt32(localHeaderOffset))
    buffer.append(name)
    if !zip64.bytes.isEmpty {
      buffer.u16(0x0001)
      buffer.u16(UInt16(zip64.bytes.count))
      buffer.append(zip64.bytes)
    }
    if let unixTime {
      buffer.u16(0x5455)
      buffer.u16(5)
      buffer.bytes.append(1)
      buffer.u32(UInt32(bitPattern: unixTime))
    }
  }
}

enum ZipEnd {
  /// The end of central directory record, preceded by the zip64 record and locator when the
  /// count or an offset does not fit the classic fields.
  static func records(entryCount: Int, centralOffset: UInt64, centralSize: UInt64) -> [UInt8] {
    var buffer = ByteBuffer()
    let needs64 =
      entryCount >= 0xFFFF || centralOffset >= ZipRecords.zip64Threshold
      || centralSize >= ZipRecords.zip64Threshold
    if needs64 {
      let zip64EndOffset = centralOffset + centralSize
      buffer.u32(ZipRecords.zip64EndSignature)
      buffer.u64(44)
      buffer.u16(ZipRecords.madeByUnix)
      buffer.u16(45)
      buffer.u32(0)
      buffer.u32(0)
      buffer.u64(UInt64(entryCount))
      buffer.u64(UInt64(entryCount))
      buffer.u64(centralSize)
      buffer.u64(centralOffset)
      buffer.u32(ZipRecords.zip64LocatorSignature)
      buffer.u32(0)
      buffer.u64(zip64EndOffset)
      buffer.u32(1)
    }
    buffer.u32(ZipRecords.endSignature)
    buffer.u16(0)
    buffer.u16(0)
    buffer.u16(needs64 ? 0xFFFF : UInt16(entryCount))
    buffer.u16(needs64 ? 0xFFFF : UInt16(entryCount))
    buffer.u32(needs64 ? 0xFFFF_FFFF : UInt32(centralSize))
    buffer.u32(needs64 ? 0xFFFF_FFFF : UInt32(centralOffset))
    buffer.u16(0)
    return buffer.bytes
  }
}

/// An MS-DOS date and time, as zip headers store them, computed in UTC so the bytes do not
/// depend on the time zone (readers get the real time from the extended-timestamp field).
struct DOSDateTime {
  var time: UInt16
  var date: UInt16
  /// 1980-01-01 00:00:00 UTC, the earliest time a DOS date holds (an earlier one is written as this).
  static let earliest: Int64 = 315_532_800

  init(_ seconds: Int64) {
    // DOS dates cover 1980-2107.
    let clamped = min(max(seconds, Self.earliest), 4_354_819_198)
    let days = clamped / 86_400
    let secondsOfDay = clamped % 86_400
    let (year, month, day) = CivilDate.of(daysSince1970: days)
    time = UInt16(secondsOfDay / 3600) << 11 | UInt16(secondsOfDay % 3600 / 60) << 5 | UInt16(secondsOfDay % 60 / 2)
    date = UInt16(year - 1980) << 9 | UInt16(month) << 5 | UInt16(day)
  }
}
