import ArgumentParser
import DocumentPackage
import SystemPackage

/// Opens what the user names as a package.
enum PackageOpener {
  /// The package at `path`, read lazily.
  static func open(_ path: String) throws -> PackageNode {
    try PackageNode(contentsOf: FilePath(path))
  }
}
