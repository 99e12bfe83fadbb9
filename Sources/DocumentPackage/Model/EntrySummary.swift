import SystemPackage

/// One entry as JSON describes it: the one shape of `docpkg inspect --json`'s items (of a package and of an archive)
/// and of `docpkg serve`'s tree and previews. Every entry has `path`, `kind`, `size` and `mode`; a link has `target`,
/// a device, FIFO or socket in an archive has `special`, and an archive entry `unpack` would refuse has `refused`.
/// Absent fields are left out; the keys are sorted (a JSON encoder keeps no other order), as
/// ``VersionSummary``'s are.
package struct EntrySummary: Sendable, Codable, Equatable {
  /// The path from the root, components joined by `/` (bytes that are not UTF-8 as U+F780–U+F7FF).
  package var path: String
  /// `file`, `directory` or `symlink`; in an archive also `hardlink` and `special`.
  package var kind: String
  /// A file's length, a link's target length, 0 for a directory (an archive entry: its declared size, or 0).
  package var size: Int64
  /// The permissions, four octal digits (``/SystemPackage/FilePermissions/octal``).
  package var mode: String
  /// A symbolic link's destination (never followed), or a hard link's target in an archive.
  package var target: String?
  /// For a special archive entry: `FIFO`, `character device`, `block device` or `socket`.
  package var special: String?
  /// Why `unpack` would refuse this archive entry, in words.
  package var refused: String?

  /// An entry with every field given.
  package init(
    path: String, kind: String, size: Int64, mode: String, target: String? = nil, special: String? = nil,
    refused: String? = nil
  ) {
    self.path = path
    self.kind = kind
    self.size = size
    self.mode = mode
    self.target = target
    self.special = special
    self.refused = refused
  }

  /// The entry `node` is, at `path`.
  package init(_ node: PackageNode, path: String) {
    self.init(
      path: path, kind: node.kind.rawValue, size: node.size, mode: node.permissions.octal,
      target: node.kind == .symlink ? node.symbolicLinkDestination : nil)
  }
}

extension FilePermissions {
  /// Four octal digits: `0644`, `4755`.
  package var octal: String {
    let digits = String(rawValue, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
