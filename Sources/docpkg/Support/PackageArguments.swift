import ArgumentParser
import DocumentArchive
import DocumentPackage
import SystemPackage

/// Opens what the user names as a package.
enum PackageOpener {
  /// The package at `path`, read lazily: a package directory, or an archive (zip, tar, compressed
  /// tar; recognised by its first bytes, else its extension) read in place without extracting it.
  static func open(_ path: String) throws -> PackageNode {
    let filePath = FilePath(path)
    if isArchive(filePath) { return try ArchivePackage.open(filePath) }
    return try PackageNode(contentsOf: filePath)
  }

  /// Whether `path` is a regular file that holds an archive.
  static func isArchive(_ path: FilePath) -> Bool {
    guard let node = try? PackageNode(contentsOf: path), node.kind == .file else { return false }
    return ArchiveFormat(contentsOf: path) != nil
  }
}
