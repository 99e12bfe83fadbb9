import DocumentPackage

/// How entry names are decoded from an archive's bytes.
///
/// - Zip (APPNOTE 4.4.4): with general-purpose flag bit 11 the name is UTF-8 (libarchive refuses it
///   if it is not); otherwise it is CP437 — unless libarchive already took the Info-ZIP Unicode Path
///   extra field (0x7075, whose CRC-32 must match the stored name), or the bytes are valid UTF-8:
///   Unix zip tools (Info-ZIP zip 3.0 among them) store UTF-8 names without the flag, and CP437 text
///   is practically never valid multi-byte UTF-8. An entry made on Unix (version made by, host 3) whose
///   name is not UTF-8 keeps its bytes, as a tar's name does (a Latin-1 name zipped on Linux): unzip,
///   bsdtar and 7z write those bytes, where Python alone reads CP437.
/// - Tar: names are the bytes they are (Linux file names are bytes). Bytes that are not part of
///   valid UTF-8 are carried in a `String` as the private-use scalars U+F780–U+F7FF (byte 0x80–0xFF,
///   ``RawByteNames``), turned back into the same bytes when the file is created (``rawBytes(_:)``), and shown as `\xNN`.
///   A name that contains those scalars itself is refused, so the mapping cannot confuse two names.
enum EntryName {
  /// A zip entry's name: UTF-8 if valid, else its bytes (``decodeBytes(_:)``) if it was made on Unix, else CP437.
  static func decodeZip(_ bytes: [UInt8], madeOnUnix: Bool) -> String {
    if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
    if madeOnUnix { return decodeBytes(bytes) }
    var result = String.UnicodeScalarView()
    for byte in bytes {
      result.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(cp437High[Int(byte) - 0x80])!)
    }
    return String(result)
  }

  /// A tar entry's name: valid UTF-8 kept, every other byte as its raw-byte scalar (``RawByteNames``).
  static func decodeBytes(_ bytes: [UInt8]) -> String {
    // Valid UTF-8, nearly every name, is kept as it is: decoded without repair, it is the same bytes (a repair
    // puts U+FFFD where the bytes were not valid). This spares a walk the general decoder's copy and checks.
    var text = bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    let kept = text.withUTF8 { text in bytes.withUnsafeBytes { Syscalls.bytesEqual(UnsafeRawBufferPointer(text), $0) } }
    return kept ? text : RawByteNames.decode(bytes)
  }

  /// The bytes a decoded name stands for: UTF-8, with each raw-byte scalar turned back into its byte.
  static func rawBytes(_ name: String) -> [UInt8] { RawByteNames.encode(name) }

  /// Whether `scalar` stands for a raw byte.
  static func isRawByte(_ scalar: Unicode.Scalar) -> Bool { RawByteNames.isRawByte(scalar) }

  /// CP437's characters for bytes 0x80–0xFF.
  static let cp437High: [UInt32] = [
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,
    0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
    0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
    0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
    0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,
    0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556,
    0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
    0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F,
    0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
    0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B,
    0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
    0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,
    0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
    0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248,
    0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
  ]
}

extension RawName {
  /// The file name an entry's decoded name stands for (see ``EntryName``).
  init(entryName name: String) {
    var bytes = EntryName.rawBytes(name)
    bytes.append(0)
    self = bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { RawName(cString: $0.baseAddress!) } }
  }
}
