import DocumentPackage
import SystemPackage

extension PackageNode {
  /// The package a user names by `location`, read lazily: a package directory (or a single file or link), an
  /// archive read in place, or a version kept in a package's version store.
  ///
  ///     let current = try PackageNode.open(location: "Trip.mydoc")
  ///     let shared = try PackageNode.open(location: "Trip.zip")       // zip, tar, compressed tar
  ///     let before = try PackageNode.open(location: "Trip.mydoc@3")   // version 3, read-only
  ///     let changes = try current.difference(from: before)
  ///
  /// - A regular file holding an archive (recognised by its first bytes, else by its extension) is read in place
  ///   with ``ArchivePackage/open(_:unwrappingSingleDirectory:limits:)``, without extracting it.
  /// - `PACKAGE@ID`, when nothing is at that path, is version `ID` of `PACKAGE` from its `VersionStore`, each
  ///   directory's tree read when the directory is first listed.
  /// - Anything else is ``/DocumentPackage/PackageNode/init(contentsOf:options:)``: a top-level symbolic link is followed.
  ///
  /// This is how `docpkg inspect`, `cat`, `diff` and `pack` read their operands.
  /// - Parameter location: A path, or `PATH@ID`.
  /// - Returns: The root of the tree; nothing is read below it until asked.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the path: `noSuchEntry` if nothing is there (and it is not a version),
  ///   the archive's or version store's error if it cannot be read.
  public static func open(location: String) throws -> PackageNode {
    try open(location: location, keepingContentsOf: nil)
  }

  /// The package at `location`, as ``open(location:)`` reads it; an archive keeps the bytes of the file at `entry`
  /// as it is walked (``ArchivePackage/open(_:keepingContentsOf:)``), for `docpkg cat`.
  package static func open(location: String, keepingContentsOf entry: String?) throws -> PackageNode {
    let path = FilePath(location)
    let node: PackageNode
    do {
      node = try PackageNode(contentsOf: path)
    } catch let error as PackageError where error.code == .noSuchEntry {
      guard let (package, id) = versionReference(location) else { throw error }
      return try VersionStore(forPackageAt: package).treeListedLazily(of: id)
    }
    if node.kind == .file, ArchiveFormat(contentsOf: path) != nil {
      return try entry.map { try ArchivePackage.open(path, keepingContentsOf: $0) } ?? ArchivePackage.open(path)
    }
    return node
  }

  /// `PACKAGE@ID` split into the package's path and the id; `nil` unless `location` ends in `@` and digits after
  /// a non-empty path.
  package static func versionReference(_ location: String) -> (package: FilePath, id: Int)? {
    guard let at = location.lastIndex(of: "@"), at != location.startIndex,
      let id = Int(location[location.index(after: at)...])
    else { return nil }
    return (FilePath(String(location[..<at])), id)
  }
}
