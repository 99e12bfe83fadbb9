import DocumentPackage

/// Opens the containers nested in a package for `docpkg diff --recursive`.
enum ContainerExpander {
  /// The hook handed to ``PackageDifference/Options/expandingContainers``.
  ///
  /// Zip entries (iWork's `Index.zip`) are opened here, read in place, once the archive reader in
  /// `DocumentArchive` can turn an archive into a ``PackageNode`` tree; until then `--recursive`
  /// is refused rather than silently comparing containers as plain files.
  /// - Throws: ``PackageError`` with code `unsupported` while no archive reader is available.
  static func hook(for package: String) throws -> (PackageNode, String) throws -> PackageNode? {
    throw PackageError(
      .unsupported, "cannot look inside the zip files of", path: package,
      context: "(--recursive needs the archive reader, which this build does not have yet)")
  }
}
