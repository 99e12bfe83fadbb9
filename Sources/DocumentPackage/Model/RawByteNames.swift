/// Names that are not valid UTF-8, as the model, the archive readers and the CLI show and compare them.
///
/// Linux file names and tar entry names are bytes. A name's valid UTF-8 stays as it is, and every other byte
/// 0x80–0xFF is carried in a `String` as one private-use scalar, U+F780–U+F7FF, so that two names are equal
/// exactly when their bytes are. Text shows such a byte as `\xNN`, and a backslash of the name itself as `\\`,
/// so that no two names show alike (``Swift/String/escapingName``); ``unescapingName(_:)`` reads
/// that form back, for a name given on the command line.
package enum RawByteNames {
  /// The first of the scalars standing for raw bytes: U+F780 is byte 0x80, U+F7FF byte 0xFF.
  package static let base: UInt32 = 0xF700

  /// Whether `scalar` stands for a raw byte.
  package static func isRawByte(_ scalar: Unicode.Scalar) -> Bool { (0xF780...0xF7FF).contains(scalar.value) }

  /// The name `bytes` are: valid UTF-8 kept, every other byte as its raw-byte scalar. With `escapingLookalikes`, a
  /// scalar of U+F780–U+F7FF that the bytes spell in valid UTF-8 is carried as its three bytes' scalars too, so that
  /// no two byte names give the same text (the version store's trees); without, it stays as spelt (the archive
  /// readers refuse such a name).
  package static func decode(_ bytes: some Collection<UInt8>, escapingLookalikes: Bool = false) -> String {
    let bytes = Array(bytes)
    if let utf8 = String(validating: bytes, as: UTF8.self),
      !escapingLookalikes || !utf8.unicodeScalars.contains(where: isRawByte)
    {
      return utf8
    }
    var result = String.UnicodeScalarView()
    var index = 0
    while index < bytes.count {
      let lead = bytes[index]
      let length =
        lead < 0x80
        ? 1
        : (0xC2...0xDF).contains(lead)
          ? 2
          : (0xE0...0xEF).contains(lead)
            ? 3
            : (0xF0...0xF4).contains(lead) ? 4 : 0
      if length > 0, index + length <= bytes.count,
        let decoded = String(validating: bytes[index..<index + length], as: UTF8.self),
        !(escapingLookalikes && decoded.unicodeScalars.contains(where: isRawByte))
      {
        result.append(contentsOf: decoded.unicodeScalars)
        index += length
      } else {
        result.append(Unicode.Scalar(base + UInt32(lead))!)
        index += 1
      }
    }
    return String(result)
  }

  /// The bytes `text` stands for (``decode(_:escapingLookalikes:)`` read back): UTF-8, with each raw-byte scalar
  /// turned back into its byte.
  package static func encode(_ text: String) -> [UInt8] {
    guard text.unicodeScalars.contains(where: isRawByte) else { return Array(text.utf8) }
    var bytes: [UInt8] = []
    for scalar in text.unicodeScalars {
      if isRawByte(scalar) { bytes.append(UInt8(scalar.value - base)) } else { bytes += String(scalar).utf8 }
    }
    return bytes
  }

  /// The name that `text`, written as ``Swift/String/escapingName`` shows names, stands for: `\xNN`
  /// (a byte 0x80–0xFF) as its raw-byte scalar, `\\` as one backslash, `\n`, `\t`, `\r` and `\u{N}` as their
  /// characters; `nil` when `text` holds no backslash or a backslash that starts none of these.
  package static func unescapingName(_ text: String) -> String? {
    guard text.utf8.contains(UInt8(ascii: "\\")) else { return nil }
    var result = String.UnicodeScalarView()
    var scalars = Substring(text).unicodeScalars[...]
    while let scalar = scalars.popFirst() {
      guard scalar == "\\" else {
        result.append(scalar)
        continue
      }
      switch scalars.popFirst() {
      case "\\": result.append("\\")
      case "n": result.append("\n")
      case "t": result.append("\t")
      case "r": result.append("\r")
      case "x":
        let digits = String(String.UnicodeScalarView(scalars.prefix(2)))
        guard digits.count == 2, let byte = UInt8(digits, radix: 16), byte >= 0x80 else { return nil }
        scalars.removeFirst(2)
        result.append(Unicode.Scalar(base + UInt32(byte))!)
      case "u":
        guard scalars.first == "{", let end = scalars.firstIndex(of: "}") else { return nil }
        let digits = String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<end]))
        guard let value = UInt32(digits, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
        scalars = scalars[scalars.index(after: end)...]
        result.append(decoded)
      default: return nil
      }
    }
    return String(result)
  }
}
