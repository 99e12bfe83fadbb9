import DocumentPackage

extension ZipCentralDirectory {
  /// One central directory header (APPNOTE.TXT 4.3.12) read in place: its fields decoded on demand,
  /// nothing copied. Valid only while the buffer that ``ZipCentralDirectory/forEachHeader(archive:_:)``
  /// lends it is; ``entry()`` copies out what outlives it.
  struct Header {
    /// The whole header: 46 fixed bytes, then the name, the extra field and the comment.
    let bytes: UnsafeRawBufferPointer

    func u16(_ at: Int) -> UInt16 { bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian }
    func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }

    var versionMadeBy: UInt16 { u16(4) }
    var flags: UInt16 { u16(8) }
    var method: UInt16 { u16(10) }
    var externalAttributes: UInt32 { u32(38) }
    var nameLength: Int { Int(u16(28)) }
    var extraLength: Int { Int(u16(30)) }
    /// The name's bytes, as stored.
    var name: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[46..<(46 + nameLength)]) }
    /// A directory: its name ends in `/`.
    var isDirectory: Bool { nameLength > 0 && bytes[46 + nameLength - 1] == UInt8(ascii: "/") }

    /// The sizes and offset, with saturated ones replaced by the zip64 extra field's values (in that
    /// order), and where the extra field holds an Info-ZIP Unicode Path (0x7075), if it does.
    func resolved() -> (
      size: UInt64, compressedSize: UInt64, localHeaderOffset: UInt64, unicodePath: Range<Int>?
    ) {
      var size = UInt64(u32(24))
      var compressedSize = UInt64(u32(20))
      var localHeaderOffset = UInt64(u32(42))
      var unicodePath: Range<Int>?
      let end = 46 + nameLength + extraLength
      var position = 46 + nameLength
      while position + 4 <= end {
        let id = u16(position)
        let length = Int(u16(position + 2))
        let data = position + 4
        guard data + length <= end else { break }
        if id == 0x7075 { unicodePath = data..<(data + length) }
        if id == 0x0001 {
          var field = data
          func next() -> UInt64? {
            guard field + 8 <= data + length else { return nil }
            defer { field += 8 }
            return UInt64(u32(field)) | UInt64(u32(field + 4)) << 32
          }
          if size == 0xFFFF_FFFF, let value = next() { size = value }
          if compressedSize == 0xFFFF_FFFF, let value = next() { compressedSize = value }
          if localHeaderOffset == 0xFFFF_FFFF, let value = next() { localHeaderOffset = value }
        }
        position = data + length
      }
      return (size, compressedSize, localHeaderOffset, unicodePath)
    }

    /// The modification time of the extra field's NTFS timestamps (0x000A: 100 ns ticks since 1601,
    /// UTC), when there is no extended timestamp (0x5455), which libarchive reads itself and which
    /// then wins. Windows tools (7-Zip, WinRAR, WinZip) write NTFS times; without them the entry has
    /// only its MS-DOS time, in the writer's local time zone.
    func ntfsModificationTime() -> FileTime? {
      let end = 46 + nameLength + extraLength
      var position = 46 + nameLength
      var ticks: UInt64?
      while position + 4 <= end {
        let id = u16(position)
        let data = position + 4
        let fieldEnd = data + Int(u16(position + 2))
        guard fieldEnd <= end else { break }
        if id == 0x5455 { return nil }
        if id == 0x000A {
          // Four reserved bytes, then attributes: a tag and a size; tag 1 holds mtime, atime, ctime.
          var attribute = data + 4
          while attribute + 4 <= fieldEnd {
            let size = Int(u16(attribute + 2))
            if u16(attribute) == 1, size >= 8, attribute + 12 <= fieldEnd {
              ticks = UInt64(u32(attribute + 4)) | UInt64(u32(attribute + 8)) << 32
            }
            attribute += 4 + size
          }
        }
        position = fieldEnd
      }
      // 1601-01-01 to 1970-01-01 is 11,644,473,600 seconds.
      guard let ticks, ticks / 10_000_000 >= 11_644_473_600 else { return nil }
      return FileTime(
        seconds: Int64(ticks / 10_000_000) - 11_644_473_600, nanoseconds: Int32(ticks % 10_000_000) * 100)
    }

    /// The entry, copied out of the buffer.
    func entry() -> Entry {
      let values = resolved()
      return Entry(
        name: Array(name), flags: flags, method: method, crc: u32(16), compressedSize: values.compressedSize,
        size: values.size, localHeaderOffset: values.localHeaderOffset, externalAttributes: externalAttributes,
        versionMadeBy: versionMadeBy,
        unicodePath: values.unicodePath.map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) })
    }
  }
}
