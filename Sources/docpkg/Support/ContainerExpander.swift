import DocumentArchive
import DocumentPackage

/// Opens the containers nested in a package for `docpkg diff --recursive`.
enum ContainerExpander {
  /// The hook handed to ``PackageDifference/Options/expandingContainers``.
  ///
  /// A file that is a zip (by its first bytes; iWork's `Index.zip`) and is on disk as the model
  /// has it is opened in place with ``ArchivePackage``, its top-level entries the children of a
  /// root named after it. Other files, and zips that exist only in memory or inside another
  /// archive, are not containers (`nil`): they are compared as files.
  /// - Throws: ``PackageError`` if a zip is damaged or has unsafe entries.
  static func hook(for package: String) throws -> (PackageNode, String) throws -> PackageNode? {
    return { node, _ in
      guard node.kind == .file, let location = node.diskLocation, ArchiveFormat(contentsOf: location) == .zip else {
        return nil
      }
      return try ArchivePackage.open(location, unwrappingSingleDirectory: false)
    }
  }
}
