import DocumentPackage

extension ZipCentralDirectory {
  /// One central directory header (APPNOTE.TXT 4.3.12) read in place: its fields decoded on demand,
  /// nothing copied. Valid only while the buffer that ``ZipCentralDirectory/forEachHeader(archive:_:)``
  /// lends it is; ``entry()`` copies out what outlives it.
  struct Header {
    /// The whole header: 46 fixed bytes, then the name, the extra field and the comment.
    let bytes: UnsafeRawBufferPointer
    /// Added to the local header offset: the bytes before the archive (``ZipCentralDirectory/localHeaderShift``).
    let localHeaderShift: UInt64
    /// Where the header starts in the file (set by ``ZipCentralDirectory/forEachHeader(archive:_:)``).
    var position: Int64 = 0

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

    /// The header's extra field, walked.
    var extraFields: ZipExtraFields {
      ZipExtraFields(in: bytes, from: 46 + nameLength, to: 46 + nameLength + extraLength)
    }

    /// The sizes and offset, with saturated ones replaced by the zip64 extra field's values, where the
    /// extra field holds an Info-ZIP Unicode Path (0x7075), if it does, and what is wrong with the extra
    /// field, if anything (see ``ZipExtraFields``).
    func resolved() -> (
      size: UInt64, compressedSize: UInt64, localHeaderOffset: UInt64, unicodePath: Range<Int>?, problem: String?
    ) {
      var size = UInt64(u32(24))
      var compressedSize = UInt64(u32(20))
      var localHeaderOffset: UInt64? = UInt64(u32(42))
      var fields = extraFields
      fields.resolveZip64(size: &size, compressedSize: &compressedSize, offset: &localHeaderOffset)
      let offset = (localHeaderOffset ?? 0).addingReportingOverflow(localHeaderShift)
      return (size, compressedSize, offset.overflow ? .max : offset.partialValue, fields.unicodePath, fields.problem)
    }

    /// The entry, copied out of the buffer.
    func entry() -> Entry {
      let values = resolved()
      return Entry(
        name: Array(name), flags: flags, method: method, crc: u32(16), compressedSize: values.compressedSize,
        size: values.size, localHeaderOffset: values.localHeaderOffset, externalAttributes: externalAttributes,
        versionMadeBy: versionMadeBy,
        unicodePath: values.unicodePath.map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) },
        extraFieldProblem: values.problem)
    }
  }
}
