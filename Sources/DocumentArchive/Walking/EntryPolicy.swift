import DocumentPackage

/// The checks every entry's name must pass before anything is written for it.
enum EntryPolicy {
  /// The longest path accepted, in bytes (Linux's PATH_MAX is 4096, with room for DESTDIR).
  static let maxPathBytes = 3072
  /// The longest name of one component, in bytes.
  static let maxComponentBytes = 255
  /// The permission bits an entry keeps, listed and unpacked alike: set-id and sticky bits never (`unpack` then
  /// applies the umask, as tar does, unless run as root).
  static let keptPermissions: UInt32 = 0o777

  /// The components of a safe relative path: none for the root (`./`, `.`, or an empty name; the walk
  /// skips a root directory and refuses anything else without a name).
  /// - Throws: ``/DocumentPackage/PackageError`` naming the entry if the name cannot be decoded, is absolute, goes up
  ///   with `..` (with `/` or `\` separators), has control characters or the scalars that stand for
  ///   raw bytes (``EntryName``), or is too long.
  /// - Complexity: One pass over the name's bytes.
  static func components(of header: EntryHeader, archive: String) throws -> [String] {
    func refuse(_ code: PackageError.Code, _ reason: String) -> PackageError {
      PackageError(code, "refusing unsafe entry", path: header.displayName, context: "in '\(archive)': \(reason)")
    }
    guard header.name != nil else { throw refuse(.invalidName, "its name is not valid UTF-8") }
    if let problem = header.nameProblem { throw refuse(.invalidName, problem) }
    return try header.rawName.withUnsafeBufferPointer { try split(UnsafeRawBufferPointer($0), refuse: refuse) }
  }

  /// Checks a path decoded by ``EntryName`` (a hard link's target), on the bytes it stands for: a name's raw
  /// bytes (a Latin-1 name in a GNU tar) are judged as the bytes they are, as the entry names are.
  static func validate(_ name: String, refuse: (PackageError.Code, String) -> PackageError) throws {
    _ = try EntryName.rawBytes(name).withUnsafeBytes { try split($0, refuse: refuse) }
  }

  /// Splits a UTF-8 path on `/` into its names (without empty ones and `.`), refusing unsafe paths.
  private static func split(_ bytes: UnsafeRawBufferPointer, refuse: (PackageError.Code, String) -> PackageError) throws
    -> [String]
  {
    var components: [String] = []
    try forEachComponent(of: bytes, refuse: refuse) { range in
      components.append(EntryName.decodeBytes(Array(UnsafeRawBufferPointer(rebasing: bytes[range]))))
    }
    return components
  }

  /// The checks of ``components(of:archive:)`` on a path's bytes, without making a `String`: calls
  /// `body` with the byte range of each name (empty ones and `.` left out), in order. The zip
  /// central-directory scan judges every entry with this, building strings only for the names it needs.
  /// - Throws: what `refuse` makes, for the first check the path fails; whatever `body` throws.
  static func forEachComponent(
    of bytes: UnsafeRawBufferPointer, refuse: (PackageError.Code, String) -> PackageError,
    _ body: (Range<Int>) throws -> Void
  ) throws {
    let slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\"), dot = UInt8(ascii: ".")
    if let first = bytes.first, first == slash || first == backslash {
      throw refuse(.invalidName, "its path is absolute")
    }
    if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"), (bytes[0] | 0x20) >= UInt8(ascii: "a"),
      (bytes[0] | 0x20) <= UInt8(ascii: "z")
    {
      throw refuse(.invalidName, "its path starts with a drive letter")
    }
    if bytes.count > maxPathBytes { throw refuse(.invalidName, "its path is longer than \(maxPathBytes) bytes") }
    var start = 0  // of the current `/`-separated name
    var segmentStart = 0  // of the current name separated by `/` or `\`
    var previous: UInt8 = 0
    for index in 0...bytes.count {
      let byte = index < bytes.count ? bytes[index] : slash
      if byte > 0x20, byte < 0x7F, byte != slash, byte != backslash {  // most bytes: nothing to check
        previous = byte
        continue
      }
      if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) {
        throw refuse(.invalidName, "its name has control characters")
      }
      if previous == 0xEF, byte == 0x9E || byte == 0x9F {
        throw refuse(.invalidName, "its name has characters U+F780-U+F7FF, which stand for raw bytes here")
      }
      previous = byte
      guard byte == slash || byte == backslash else { continue }
      if index - segmentStart == 2, bytes[segmentStart] == dot, bytes[segmentStart + 1] == dot {
        throw refuse(.invalidName, "its path goes up with '..'")
      }
      segmentStart = index + 1
      guard byte == slash else { continue }
      let length = index - start
      if length > maxComponentBytes {
        throw refuse(.invalidName, "a name in its path is longer than \(maxComponentBytes) bytes")
      }
      if length > 0, !(length == 1 && bytes[start] == dot) { try body(start..<index) }
      start = index + 1
    }
  }
}
