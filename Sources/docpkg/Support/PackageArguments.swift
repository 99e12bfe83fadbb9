import ArgumentParser
import DocumentArchive
import DocumentPackage
import SystemPackage

/// Opens what the user names as a package.
enum PackageOpener {
  /// The package at `path`, read lazily: a package directory, or an archive (zip, tar, compressed
  /// tar; recognised by its first bytes, else its extension) read in place without extracting it.
  ///
  /// The tree is kept alive until the process exits: freeing 100,000 nodes one by one just before
  /// exit costs more than `inspect`'s own work on them, and the kernel frees it all at once anyway.
  static func open(_ path: String) throws -> PackageNode {
    let filePath = FilePath(path)
    let root = isArchive(filePath) ? try ArchivePackage.open(filePath) : try PackageNode(contentsOf: filePath)
    keptUntilExit.append(root)
    return root
  }

  /// Whether `path` is a regular file that holds an archive.
  static func isArchive(_ path: FilePath) -> Bool {
    guard let node = try? PackageNode(contentsOf: path), node.kind == .file else { return false }
    return ArchiveFormat(contentsOf: path) != nil
  }

  nonisolated(unsafe) private static var keptUntilExit: [PackageNode] = []
}
