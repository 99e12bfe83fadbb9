import DocumentArchive
import DocumentPackage
import SystemPackage

/// The package the user names by `location` (a directory, an archive or `PACKAGE@ID`), through the library's
/// ``PackageNode/open(location:)``.
///
/// A package directory is read under a ``PackageReadLock`` held until the process exits: the command's whole
/// run (a listing, a diff, an archive) sees one saved state even while another process saves the package.
/// A folder inside a package (`Trip.mydoc/Pages`) is read under the read lock of the package it lies in
/// (``PackageReadLock/enclosingPackage(of:)``), since saves lock only a package's root.
/// The tree is kept alive until the process exits too: freeing 100,000 nodes one by one just before
/// exit costs more than `inspect`'s own work on them, and the kernel frees it all at once anyway.
/// With `entry`, an archive keeps that file's bytes as it is walked (`cat`: the archive read once).
func openPackage(_ location: String, keepingContentsOf entry: String? = nil) throws -> PackageNode {
  let path = FilePath(location)
  // A version that keeps files on a remote has them fetched first, before this process takes a lock.
  if (try? Syscalls.entryExists(path)) != true, let (package, id) = PackageNode.versionReference(location) {
    try fetchRemoteFiles(ofVersion: id, of: package)
  }
  let locked = PackageReadLock.enclosingPackage(of: path) ?? path
  // One lock per package: a second one (`diff PKG PKG`) would queue behind a save waiting for the first.
  if !OpenedPackages.readLocks.contains(where: { $0.packagePath == locked }) {
    OpenedPackages.readLocks.append(try PackageReadLock(forPackageAt: locked))
  }
  let root = try PackageNode.open(location: location, keepingContentsOf: entry)
  OpenedPackages.keptUntilExit.append(root)
  return root
}

/// The trees ``openPackage(_:)`` returned and the read locks it took, never freed.
private enum OpenedPackages {
  nonisolated(unsafe) static var keptUntilExit: [PackageNode] = []
  nonisolated(unsafe) static var readLocks: [PackageReadLock] = []
}
