import DocumentPackage

/// A zip entry's local header (APPNOTE.TXT 4.3.7) and data descriptor (4.3.9), checked against the
/// entry's central directory header: the one check of their agreement, for every reader of zips here.
///
/// A zip says each entry's name, method, flags, CRC-32 and sizes twice. Readers that trust the local
/// header (libarchive's names, streaming readers) and readers that trust the central directory
/// (`unzip -l`, our own lookups) would see two different archives if the copies differed: the parser
/// confusion behind signature bypasses. So any difference is damage:
/// - the name, and the Info-ZIP Unicode Path field (0x7075) that replaces it, byte for byte;
/// - the method, and the flags that change what the bytes mean ( encryption, bits 0 and 6; data
///   descriptor, 3; UTF-8 name, 11; masked local header, 13). Bits 1-2 (a deflate level hint) are free;
/// - the CRC-32 and both sizes (zip64 ones from the local zip64 field). With a data descriptor the local
///   copies may be zero, each on its own, and the descriptor after the data must hold the central CRC-32
///   and sizes.
struct ZipLocalHeader {
  /// The fixed part of a local header, before the name.
  static let fixedSize = 30
  /// The flags whose meaning two readers must agree on.
  static let comparedFlags: UInt16 = 1 << 0 | 1 << 3 | 1 << 6 | 1 << 11 | 1 << 13

  /// The header's bytes from its signature: at least the fixed part, name and extra field.
  let bytes: UnsafeRawBufferPointer

  private func u16(_ at: Int) -> UInt16 { bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian }
  private func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }

  /// How many bytes the header takes in all, from the fixed part read first (`nil` if that is not a
  /// local header).
  static func length(ofHeaderStartingWith fixed: UnsafeRawBufferPointer) -> Int? {
    guard fixed.count >= fixedSize,
      fixed.loadUnaligned(as: UInt32.self).littleEndian == ZipRecords.localHeaderSignature
    else { return nil }
    let header = ZipLocalHeader(bytes: fixed)
    return fixedSize + Int(header.u16(26)) + Int(header.u16(28))
  }

  /// Checks the local header at the start of `bytes` against `entry`.
  /// - Returns: Where the entry's data starts, relative to the header.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `corrupt`) naming the entry, the archive and what differs.
  static func check(_ bytes: UnsafeRawBufferPointer, against entry: ZipCentralDirectory.Entry, archive: String) throws
    -> Int
  {
    func damaged(_ reason: String) -> PackageError {
      PackageError(
        .corrupt, "cannot read zip entry", path: entry.decodedName, context: "in '\(archive)': \(reason)")
    }
    guard let length = length(ofHeaderStartingWith: bytes), bytes.count >= length else {
      throw damaged("its local header is missing")
    }
    let header = ZipLocalHeader(bytes: bytes)
    let name = UnsafeRawBufferPointer(rebasing: bytes[fixedSize..<(fixedSize + Int(header.u16(26)))])
    guard name.elementsEqual(entry.name) else {
      throw damaged(
        "its local header names '\(EntryName.decodeZip(Array(name), madeOnUnix: entry.versionMadeBy >> 8 == 3))', its central directory entry "
          + "'\(entry.decodedName)'")
    }
    if let problem = entry.extraFieldProblem { throw damaged("in its central directory entry, \(problem)") }
    let fields = ZipExtraFields(in: bytes, from: fixedSize + name.count, to: length)
    if let problem = fields.problem { throw damaged("in its local header, \(problem)") }
    guard fields.unicodePath.map({ Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) }) == entry.unicodePath else {
      throw damaged("its local header's Unicode path field differs from its central directory entry's")
    }
    guard header.u16(8) == entry.method else {
      throw damaged("its local header says compression method \(header.u16(8)), its central directory \(entry.method)")
    }
    let flags = header.u16(6) & comparedFlags
    guard flags == entry.flags & comparedFlags else {
      throw damaged(
        "its local header's flags (\(hex(flags))) differ from its central directory entry's "
          + "(\(hex(entry.flags & comparedFlags)))")
    }
    var size = UInt64(header.u32(22))
    var compressedSize = UInt64(header.u32(18))
    if let zip64 = fields.zip64 {
      // The local zip64 field holds both sizes, uncompressed first, when either is saturated (APPNOTE
      // 4.5.3); one of 8 bytes holds the saturated one only, as in the central directory (libarchive's
      // zip64b test archive: Python, libarchive and Info-ZIP read it so).
      if zip64.count >= 16 {
        if size == 0xFFFF_FFFF { size = header.u64(zip64.lowerBound) }
        if compressedSize == 0xFFFF_FFFF { compressedSize = header.u64(zip64.lowerBound + 8) }
      } else if zip64.count >= 8 {
        if size == 0xFFFF_FFFF {
          size = header.u64(zip64.lowerBound)
        } else if compressedSize == 0xFFFF_FFFF {
          compressedSize = header.u64(zip64.lowerBound)
        }
      }
    }
    let crc = header.u32(14)
    // With a data descriptor, a zero here means "see the descriptor" (bsdtar writes the size and
    // zeros for the rest): each field is then compared only if it is set.
    let deferred = entry.flags & ZipRecords.dataDescriptorFlag != 0
    guard crc == entry.crc || (deferred && crc == 0) else {
      throw damaged("its local header says CRC-32 \(hex(crc)), its central directory \(hex(entry.crc))")
    }
    guard size == entry.size || (deferred && size == 0),
      compressedSize == entry.compressedSize || (deferred && compressedSize == 0)
    else {
      throw damaged(
        "its local header says \(size) bytes (\(compressedSize) compressed), its central directory "
          + "\(entry.size) (\(entry.compressedSize) compressed)")
    }
    return length
  }

  /// Checks the data descriptor in `bytes`, read from just after `entry`'s data (at most 24 bytes:
  /// an optional signature, the CRC-32, then both sizes in 4 or 8 bytes each).
  /// - Throws: ``/DocumentPackage/PackageError`` (code `corrupt`) naming the entry if it is missing or differs.
  static func checkDescriptor(
    _ bytes: UnsafeRawBufferPointer, against entry: ZipCentralDirectory.Entry, archive: String
  ) throws {
    func damaged(_ reason: String) -> PackageError {
      PackageError(
        .corrupt, "cannot read zip entry", path: entry.decodedName, context: "in '\(archive)': \(reason)")
    }
    let descriptor = ZipLocalHeader(bytes: bytes)
    // The signature is optional, and a CRC-32 may happen to equal it: either reading that matches will do.
    let hasSignature = bytes.count >= 4 && descriptor.u32(0) == ZipRecords.dataDescriptorSignature
    let start = hasSignature ? 4 : 0
    func matches(from start: Int) -> Bool {
      guard bytes.count >= start + 12, descriptor.u32(start) == entry.crc else { return false }
      let expected = (entry.compressedSize, entry.size)
      if (UInt64(descriptor.u32(start + 4)), UInt64(descriptor.u32(start + 8))) == expected { return true }
      return bytes.count >= start + 20 && (descriptor.u64(start + 4), descriptor.u64(start + 12)) == expected
    }
    if matches(from: start) || (hasSignature && matches(from: 0)) { return }
    guard bytes.count >= start + 12 else { throw damaged("its data descriptor is missing") }
    let crc = descriptor.u32(start)
    guard crc == entry.crc else {
      throw damaged("its data descriptor says CRC-32 \(hex(crc)), its central directory \(hex(entry.crc))")
    }
    throw damaged(
      "its data descriptor's sizes differ from its central directory's (\(entry.size) bytes, "
        + "\(entry.compressedSize) compressed)")
  }

  private func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }

}

private func hex<T: BinaryInteger>(_ value: T) -> String { "0x" + String(value, radix: 16, uppercase: true) }
