import DocumentPackage

/// The checks every entry's name must pass before anything is written for it.
enum EntryPolicy {
  /// The longest path accepted, in bytes (Linux's PATH_MAX is 4096, with room for DESTDIR).
  static let maxPathBytes = 3072
  /// The longest name of one component, in bytes.
  static let maxComponentBytes = 255

  /// The components of a safe relative path.
  /// - Throws: ``PackageError`` naming the entry if the name is not UTF-8, is absolute, goes up
  ///   with `..` (with `/` or `\` separators), has control characters, or is too long.
  static func components(of header: EntryHeader, archive: String) throws -> [String] {
    func refuse(_ code: PackageError.Code, _ reason: String) -> PackageError {
      PackageError(code, "refusing unsafe entry", path: header.displayName, context: "in '\(archive)': \(reason)")
    }
    guard let name = header.name else { throw refuse(.invalidName, "its name is not valid UTF-8") }
    try validate(name, refuse: refuse)
    let components = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
    guard !components.isEmpty else { throw refuse(.invalidName, "it has an empty name") }
    return components
  }

  /// Checks a path (an entry's name, or a hard link's target).
  static func validate(_ name: String, refuse: (PackageError.Code, String) -> PackageError) throws {
    let bytes = Array(name.utf8)
    if bytes.first == UInt8(ascii: "/") || bytes.first == UInt8(ascii: "\\") {
      throw refuse(.invalidName, "its path is absolute")
    }
    if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"), (bytes[0] | 0x20) >= UInt8(ascii: "a"), (bytes[0] | 0x20) <= UInt8(ascii: "z") {
      throw refuse(.invalidName, "its path starts with a drive letter")
    }
    if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) || name.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) {
      throw refuse(.invalidName, "its name has control characters")
    }
    if name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains(where: { $0 == ".." }) {
      throw refuse(.invalidName, "its path goes up with '..'")
    }
    if bytes.count > maxPathBytes {
      throw refuse(.invalidName, "its path is longer than \(maxPathBytes) bytes")
    }
    if name.split(separator: "/").contains(where: { $0.utf8.count > maxComponentBytes }) {
      throw refuse(.invalidName, "a name in its path is longer than \(maxComponentBytes) bytes")
    }
  }
}
