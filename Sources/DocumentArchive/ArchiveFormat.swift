import DocumentPackage
import SystemPackage

/// The archive formats `docpkg` packs to and reads from.
public enum ArchiveFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  case zip
  case tar
  case tarGzip = "tar.gz"
  case tarBzip2 = "tar.bz2"
  case tarXz = "tar.xz"
  case tarZstd = "tar.zst"

  /// The format that the file name's extension names (`.zip`, `.tgz`, `.tar.zst`, ...), or `nil`.
  ///
  /// Document formats that are zip archives under another name (`.odt`, `.epub`, `.docx`,
  /// `.pages` when flattened) are recognised as zip.
  public init?(fileName: String) {
    let lower = fileName.lowercased()
    let table: [(String, ArchiveFormat)] = [
      (".tar.gz", .tarGzip), (".tgz", .tarGzip), (".tar.xz", .tarXz), (".txz", .tarXz),
      (".tar.bz2", .tarBzip2), (".tbz2", .tarBzip2), (".tbz", .tarBzip2),
      (".tar.zst", .tarZstd), (".tzst", .tarZstd), (".tar", .tar),
      (".zip", .zip), (".odt", .zip), (".ods", .zip), (".odp", .zip), (".epub", .zip),
      (".docx", .zip), (".xlsx", .zip), (".pptx", .zip),
    ]
    guard let match = table.first(where: { lower.hasSuffix($0.0) }) else { return nil }
    self = match.1
  }

  /// The format a name such as `--format` takes names: the format's own name (`zip`, `tar.gz`) or the
  /// short extension of one (`tgz`, `txz`, `tbz2`, `tbz`, `tzst`), in any case; `nil` for anything else.
  public init?(name: String) {
    let lower = name.lowercased()
    let short: [String: ArchiveFormat] = [
      "tgz": .tarGzip, "txz": .tarXz, "tbz2": .tarBzip2, "tbz": .tarBzip2, "tzst": .tarZstd,
    ]
    guard let format = ArchiveFormat(rawValue: lower) ?? short[lower] else { return nil }
    self = format
  }

  /// The format that the first bytes of a file show (zip and tar magic numbers, and the
  /// gzip, bzip2, xz and zstd signatures of a compressed tar), or `nil`.
  public init?(magic bytes: [UInt8]) {
    func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
    if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) || starts([0x50, 0x4B, 0x07, 0x08]) {
      self = .zip
    } else if starts([0x1F, 0x8B]) {
      self = .tarGzip
    } else if starts([0x42, 0x5A, 0x68]) {
      self = .tarBzip2
    } else if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) {
      self = .tarXz
    } else if starts([0x28, 0xB5, 0x2F, 0xFD]) {
      self = .tarZstd
    } else if bytes.count >= 262, Array(bytes[257..<262]) == Array("ustar".utf8) {
      self = .tar
    } else {
      return nil
    }
  }

  /// The format of the archive at `path`, from its first bytes, else from its name; `nil` if it is
  /// neither (or is not a regular file).
  public init?(contentsOf path: FilePath) {
    guard let fd = try? Syscalls.openFile(path, [.readOnly, .nonBlocking]) else { return nil }
    defer { Syscalls.closeFile(fd) }
    guard (try? Syscalls.status(of: fd))?.kind == .file,
      let format = ArchiveFormat(contentsOf: fd) ?? ArchiveFormat(fileName: path.string)
    else { return nil }
    self = format
  }

  /// The format the file's first bytes show; else zip if it ends in a zip's end records (a self-extractor: an
  /// executable with a zip appended, which unzip reads whatever its name).
  init?(contentsOf fd: CInt) {
    if let format = ArchiveFormat(magic: Syscalls.readPrefix(fd, count: 512)) {
      self = format
    } else if let size = try? Syscalls.status(of: fd).size, ZipCentralDirectory(fd: fd, fileSize: size) != nil {
      self = .zip
    } else {
      return nil
    }
  }

  /// The usual extension, without the leading dot.
  public var fileExtension: String { rawValue }

  /// Whether this is a tar, possibly compressed.
  public var isTar: Bool { self != .zip }

  /// The format's name, as `--format` takes it: `zip`, `tar.gz`.
  public var description: String { rawValue }
}
