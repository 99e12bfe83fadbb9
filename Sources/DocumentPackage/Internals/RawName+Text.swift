import SystemPackage

/// A name's bytes as text that stands for exactly those bytes, for the version store's trees (whose
/// names are text) and the nodes read back from them: Linux names are bytes, and a name another
/// program wrote need not be UTF-8.
///
/// Valid UTF-8 is kept as it is; every other byte 0x80–0xFF is the private-use scalar U+F780–U+F7FF
/// (U+F700 + the byte; DocumentArchive carries a tar entry's bytes the same way, and messages show
/// them as `\xNN`). So that no two names give the same text, a scalar of that range spelt in valid
/// UTF-8 is written as its three bytes' scalars too. ``RawName/init(text:)`` is the inverse.
extension RawName {
  /// The first scalar standing for a byte: U+F780 is the byte 0x80.
  private static let byteBase: UInt32 = 0xF700

  private static func standsForByte(_ scalar: Unicode.Scalar) -> Bool { (0xF780...0xF7FF).contains(scalar.value) }

  /// The name's bytes, without the trailing NUL.
  package var nameBytes: ArraySlice<UInt8> {
    ArraySlice(bytes.dropLast().map { UInt8(bitPattern: $0) })
  }

  /// The text that stands for this name's bytes (see the type's discussion).
  package var text: String {
    let raw = nameBytes
    if let valid = String(validating: raw, as: UTF8.self),
      !valid.unicodeScalars.contains(where: Self.standsForByte)
    {
      return valid
    }
    var result = String.UnicodeScalarView()
    var index = raw.startIndex
    while index < raw.endIndex {
      let lead = raw[index]
      let length =
        lead < 0x80
        ? 1 : (0xC2...0xDF).contains(lead) ? 2 : (0xE0...0xEF).contains(lead) ? 3 : (0xF0...0xF4).contains(lead) ? 4 : 0
      if length > 0, index + length <= raw.endIndex,
        let decoded = String(validating: raw[index..<index + length], as: UTF8.self),
        let scalar = decoded.unicodeScalars.first, !Self.standsForByte(scalar)
      {
        result.append(scalar)
        index += length
      } else {
        result.append(Unicode.Scalar(Self.byteBase + UInt32(lead))!)
        index += 1
      }
    }
    return String(result)
  }

  /// The name whose ``text`` is `text`: UTF-8, with each scalar U+F780–U+F7FF turned back into its byte.
  package init(text: String) {
    guard text.unicodeScalars.contains(where: Self.standsForByte) else {
      self.init(text)
      return
    }
    var raw: [UInt8] = []
    for scalar in text.unicodeScalars {
      if Self.standsForByte(scalar) {
        raw.append(UInt8(scalar.value - Self.byteBase))
      } else {
        raw += String(scalar).utf8
      }
    }
    self.init(bytes: raw[...])
  }

  /// The name as a path component (its exact bytes); nil for no name a directory can hold
  /// (empty, `.`, `..`, or with a `/`).
  package var component: FilePath.Component? {
    withCString { FilePath.Component(platformString: $0) }
  }
}
