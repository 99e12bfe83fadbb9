import SystemPackage

/// A name's bytes as text that stands for exactly those bytes, for the version store's trees (whose
/// names are text) and the nodes read back from them: Linux names are bytes, and a name another
/// program wrote need not be UTF-8.
///
/// Valid UTF-8 is kept as it is; every other byte 0x80–0xFF is the private-use scalar U+F780–U+F7FF
/// (U+F700 + the byte; DocumentArchive carries a tar entry's bytes the same way, and messages show
/// them as `\xNN`). So that no two names give the same text, a scalar of that range spelt in valid
/// UTF-8 is written as its three bytes' scalars too (``RawByteNames``). ``RawName/init(text:)`` is the inverse.
extension RawName {
  /// The name's bytes, without the trailing NUL.
  package var nameBytes: ArraySlice<UInt8> {
    ArraySlice(bytes.dropLast().map { UInt8(bitPattern: $0) })
  }

  /// The text that stands for this name's bytes (see the type's discussion).
  package var text: String { RawByteNames.decode(nameBytes, escapingLookalikes: true) }

  /// The name whose ``text`` is `text`: UTF-8, with each scalar U+F780–U+F7FF turned back into its byte.
  package init(text: String) {
    guard text.unicodeScalars.contains(where: RawByteNames.isRawByte) else {
      self.init(text)
      return
    }
    self.init(bytes: RawByteNames.encode(text)[...])
  }

  /// The name as a path component (its exact bytes); nil for no name a directory can hold
  /// (empty, `.`, `..`, or with a `/`).
  package var component: FilePath.Component? {
    withCString { FilePath.Component(platformString: $0) }
  }
}

extension FilePath {
  /// This path with the name `name` (its exact bytes, ``RawName/component``) appended; unchanged for
  /// no name a directory can hold.
  func appending(raw name: RawName) -> FilePath {
    name.component.map { appending($0) } ?? self
  }
}
