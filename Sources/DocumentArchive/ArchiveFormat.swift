import SystemPackage

/// The archive formats `docpkg` packs to and reads from.
public enum ArchiveFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  case zip
  case tar
  case tarGzip = "tar.gz"
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
      (".tar.zst", .tarZstd), (".tzst", .tarZstd), (".tar", .tar),
      (".zip", .zip), (".odt", .zip), (".ods", .zip), (".odp", .zip), (".epub", .zip),
      (".docx", .zip), (".xlsx", .zip), (".pptx", .zip),
    ]
    guard let match = table.first(where: { lower.hasSuffix($0.0) }) else { return nil }
    self = match.1
  }

  /// The usual extension, without the leading dot.
  public var fileExtension: String { rawValue }

  public var description: String { rawValue }
}
