import ArgumentParser
import DocumentPackage
import SystemPackage

/// Opens what the user names as a package.
enum PackageOpener {
  /// The package at `path`, read lazily.
  ///
  /// The tree is kept alive until the process exits: freeing 100,000 nodes one by one just before
  /// exit costs more than `inspect`'s own work on them, and the kernel frees it all at once anyway.
  static func open(_ path: String) throws -> PackageNode {
    let root = try PackageNode(contentsOf: FilePath(path))
    keptUntilExit.append(root)
    return root
  }

  nonisolated(unsafe) private static var keptUntilExit: [PackageNode] = []
}
