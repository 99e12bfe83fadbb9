import DocumentPackage

/// The extra field of a zip header (APPNOTE.TXT 4.5): records of a 2-byte id, a 2-byte size and that many
/// bytes, walked once for every reader here, in a central directory header or a local header alike.
///
/// It finds the fields the readers use and judges the field's shape as libarchive does, since libarchive
/// refuses an entry whose extra field it cannot walk (libarchive 3.6, `process_extra`): a field of 1 to 3
/// bytes, a record that runs past the end or leaves bytes after the last record, an empty extended
/// timestamp (0x5455), a WinZip AES record (0x9901) under 6 bytes, and a zip64 record (0x0001) that lacks
/// a saturated size or offset, or holds one above `Int64.max`. Our own readers must refuse the same
/// entries, or `inspect` would list an archive that `unpack` cannot read.
struct ZipExtraFields {
  /// The data of the zip64 extended information record (0x0001).
  private(set) var zip64: Range<Int>?
  /// The data of the Info-ZIP Unicode Path record (0x7075).
  private(set) var unicodePath: Range<Int>?
  /// The data of the extended timestamp record (0x5455).
  private(set) var extendedTimestamp: Range<Int>?
  /// The data of the NTFS timestamps record (0x000A).
  private(set) var ntfs: Range<Int>?
  /// What is wrong with the field's shape, in words; `nil` if it is well formed.
  private(set) var problem: String?

  private let bytes: UnsafeRawBufferPointer

  /// Walks the extra field `start..<end` of `bytes`.
  init(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
    self.bytes = bytes
    let length = end - start
    if length > 0, length < 4 {
      problem = "its extra field is \(length) bytes, too short for a record"
      return
    }
    var position = start
    while position + 4 <= end {
      let id = u16(position)
      let data = position + 4
      let fieldEnd = data + Int(u16(position + 2))
      guard fieldEnd <= end else {
        problem = "its extra field's record 0x\(hex(id)) needs \(fieldEnd - data) bytes, \(end - data) are left"
        return
      }
      switch id {
      case 0x0001: zip64 = data..<fieldEnd
      case 0x7075: unicodePath = data..<fieldEnd
      case 0x5455:
        extendedTimestamp = data..<fieldEnd
        if fieldEnd == data { problem = "its extra field's extended timestamp is empty" }
      case 0x000A: ntfs = data..<fieldEnd
      case 0x9901:
        if fieldEnd - data < 6 { problem = "its extra field's AES record is \(fieldEnd - data) bytes (6 needed)" }
      default: break
      }
      position = fieldEnd
    }
    if problem == nil, position != end {
      problem = "its extra field ends with \(end - position) bytes that are not a record"
    }
  }

  /// The sizes and local header offset with the saturated ones (`0xFFFFFFFF`) replaced by the zip64
  /// record's values, which hold only the saturated ones, in this order. A value that is saturated and
  /// missing from the record sets ``problem``. Pass `nil` for what the header does not hold.
  mutating func resolveZip64(size: inout UInt64, compressedSize: inout UInt64, offset: inout UInt64?) {
    guard let zip64 else { return }
    var field = zip64.lowerBound
    func replace(_ value: inout UInt64, _ name: String) {
      guard value == 0xFFFF_FFFF, problem == nil else { return }
      guard field + 8 <= zip64.upperBound else {
        problem = "its zip64 record lacks the \(name)"
        return
      }
      let resolved = UInt64(u32(field)) | UInt64(u32(field + 4)) << 32
      guard resolved <= UInt64(Int64.max) else {
        problem = "its zip64 record's \(name) is out of range"
        return
      }
      value = resolved
      field += 8
    }
    replace(&size, "size")
    replace(&compressedSize, "compressed size")
    if var value = offset {
      replace(&value, "local header offset")
      offset = value
    }
  }

  /// The modification time of the extended timestamp record (seconds since 1970, UTC, signed as Info-ZIP
  /// defines it: libarchive reads it unsigned, so a time before 1970 is 2106 less its distance to 1970 there),
  /// if the record has one (flag 1).
  func extendedModificationTime() -> FileTime? {
    guard let extendedTimestamp, extendedTimestamp.count >= 5, bytes[extendedTimestamp.lowerBound] & 1 != 0 else {
      return nil
    }
    return FileTime(seconds: Int64(Int32(bitPattern: u32(extendedTimestamp.lowerBound + 1))))
  }

  /// The modification time of the NTFS record (100 ns ticks since 1601, UTC) when there is no extended
  /// timestamp, which then wins.
  func ntfsModificationTime() -> FileTime? {
    guard extendedTimestamp == nil, let ntfs else { return nil }
    // Four reserved bytes, then attributes: a tag and a size; tag 1 holds mtime, atime, ctime.
    var ticks: UInt64?
    var attribute = ntfs.lowerBound + 4
    while attribute + 4 <= ntfs.upperBound {
      let size = Int(u16(attribute + 2))
      if u16(attribute) == 1, size >= 8, attribute + 12 <= ntfs.upperBound {
        ticks = UInt64(u32(attribute + 4)) | UInt64(u32(attribute + 8)) << 32
      }
      attribute += 4 + size
    }
    // 1601-01-01 to 1970-01-01 is 11,644,473,600 seconds.
    guard let ticks, ticks / 10_000_000 >= 11_644_473_600 else { return nil }
    return FileTime(
      seconds: Int64(ticks / 10_000_000) - 11_644_473_600, nanoseconds: Int32(ticks % 10_000_000) * 100)
  }

  private func u16(_ at: Int) -> UInt16 { bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian }
  private func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }
}

private func hex(_ value: UInt16) -> String { String(value, radix: 16, uppercase: true) }
