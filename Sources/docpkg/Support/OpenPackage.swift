import DocumentArchive
import DocumentPackage

/// The package the user names by `location` (a directory, an archive or `PACKAGE@ID`), through the library's
/// ``PackageNode/open(location:)``.
///
/// The tree is kept alive until the process exits: freeing 100,000 nodes one by one just before
/// exit costs more than `inspect`'s own work on them, and the kernel frees it all at once anyway.
func openPackage(_ location: String) throws -> PackageNode {
  let root = try PackageNode.open(location: location)
  OpenedPackages.keptUntilExit.append(root)
  return root
}

/// The trees ``openPackage(_:)`` returned, never freed.
private enum OpenedPackages {
  nonisolated(unsafe) static var keptUntilExit: [PackageNode] = []
}
