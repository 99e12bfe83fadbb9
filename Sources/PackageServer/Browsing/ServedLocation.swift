import DocumentArchive
import DocumentPackage
import SystemPackage

/// What `docpkg serve` was given, told apart once at start: a package on disk (it has versions and changes), an
/// archive read in place, or a version kept beside a package (`PACKAGE@ID`, read-only).
package enum ServedLocation: Sendable, Hashable {
  /// A package directory (or a single file) on disk.
  case package(FilePath)
  /// A zip or tar file, read in place through ``DocumentArchive`` with `unpack`'s policy.
  case archive(FilePath)
  /// Version `id` of the package at `package`.
  case version(package: FilePath, id: Int)

  /// Tells what `location` names, as `PackageNode.open(location:)` would read it.
  /// - Throws: ``/DocumentPackage/PackageError`` `noSuchEntry` when nothing is there.
  package init(_ location: String) throws {
    let path = FilePath(location)
    if (try? Syscalls.exists(path)) == true {
      // A file named as an archive that cannot be read is an archive too: opening it then says why, in one line,
      // as `unpack` does ("cannot open archive 'P.zip': Permission denied"), instead of serving it as a package of
      // one opaque file (issue 38).
      let namedAsArchive =
        ArchiveFormat(fileName: path.string) != nil && (try? Syscalls.statusFollowing(path))?.kind != .directory
      self = ArchiveFormat(contentsOf: path) != nil || namedAsArchive ? .archive(path) : .package(path)
      return
    }
    guard let (package, id) = PackageNode.versionReference(location) else {
      throw PackageError(.noSuchEntry, "no such package:", path: location)
    }
    self = .version(package: package, id: id)
  }

  /// The package whose versions the page shows: the package itself, or the package a version belongs to.
  package var versionedPackage: FilePath? {
    switch self {
    case .package(let path): return path
    case .version(let package, _): return package
    case .archive: return nil
    }
  }

  /// Whether this is a package directory (or file) on disk: what can change, be watched and be restored.
  package var isPackageOnDisk: Bool {
    if case .package = self { return true }
    return false
  }

  /// `package`, `archive` or `version`, for the page.
  package var kindName: String {
    switch self {
    case .package: return "package"
    case .archive: return "archive"
    case .version: return "version"
    }
  }

  /// The location as the user wrote it.
  package var displayName: String {
    switch self {
    case .package(let path), .archive(let path): return path.string
    case .version(let package, let id): return "\(package.string)@\(id)"
    }
  }

  /// Opens the tree, lazily: nothing below the root is read yet.
  package func open() throws -> PackageNode {
    switch self {
    // Verified loads: a folder swapped for a link while served is refused, not read through.
    case .package(let path): return try PackageNode(contentsOf: path).verifyingLoads()
    case .archive(let path):
      // Unpack's limits: an archive `unpack` would refuse as a bomb is not served either.
      return try ArchivePackage.open(path, limits: UnpackLimits())
    // A directory's tree object is read when the directory is listed: a page reads the trees on its path.
    case .version(let package, let id): return try VersionStore(forPackageAt: package).treeListedLazily(of: id)
    }
  }
}
