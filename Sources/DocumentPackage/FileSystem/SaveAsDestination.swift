import SystemPackage

/// Where a save-as or a copy of a package may go: the checks run before anything is written.
///
/// A save to a path replaces whatever is there with the package, atomically. That is what the
/// app asked for when the path holds a file or another package ("Save As" over an existing
/// document), but never when the path is a folder that would take more with it:
/// 1. a folder that holds the package itself (its parent, any ancestor): the package, its
///    versions and everything beside it would go;
/// 2. a path inside the package (saved or not): the package would be swapped away below it;
/// 3. a save's own files beside a package (`.NAME.docpkg-versions` and the others of
///    ``SiblingNames``), or a path inside one: a version store would be replaced or altered;
/// 4. an existing folder that holds the version store of a package: a folder of packages, not a
///    package.
/// Paths are compared with every symbolic link, `.` and `..` resolved, so `Projects/`,
/// `Projects/P.mydoc/..` and a link to `Projects` are the same folder. A deleted package's
/// path is compared as the path it had: its folder is still worth keeping.
///
/// Callers: ``PackageFile/save(to:)``, ``PackageFile/saveCopy(to:)``, ``PackageNode/write(to:originalContentsPath:)``
/// and ``Document``'s `save(to:)` and `saveCopy(to:)` (which may write a deleted package's copy).
enum SaveAsDestination {
  /// Refuses `destination` as the target of a save-as or copy of the package at `packagePath`
  /// (nil for a tree of no package) when one of the points above applies; the destination equal
  /// to the package is left to the caller.
  /// - Throws: ``PackageError`` with code `invalidArgument`, naming `destination` and the reason.
  static func check(_ destination: FilePath, packageAt packagePath: FilePath?) throws {
    let target = resolved(destination)
    if let packagePath {
      let package = resolved(packagePath)
      if target == package { return }
      if package.starts(with: target) {
        throw PackageError(
          .invalidArgument,
          "cannot save over a folder that holds the package '\(packagePath.string)' (it would be replaced with everything in it):",
          path: destination.string)
      }
      if target.starts(with: package) {
        throw PackageError(
          .invalidArgument, "cannot save inside the package '\(packagePath.string)' itself:", path: destination.string)
      }
    }
    for component in target.components where isSaveSibling(component.string) {
      throw PackageError(
        .invalidArgument,
        "cannot save over or inside '\(component.string)', a save's own file beside a package (its version store, lock or journal):",
        path: destination.string)
    }
    if let store = versionStore(in: target) {
      throw PackageError(
        .invalidArgument,
        "cannot save over a folder of packages (it holds the version store '\(store)'; it would be replaced with everything in it):",
        path: destination.string)
    }
  }

  /// `path` absolute, with links, `.` and `..` resolved as far as it exists (a part that does not
  /// exist yet is appended as written).
  private static func resolved(_ path: FilePath) -> FilePath {
    var existing = LocalFiles.absolute(path)
    var missing: [FilePath.Component] = []
    while Syscalls.resolvingLinks(existing) == nil, let last = existing.lastComponent {
      missing.insert(last, at: 0)
      existing.removeLastComponent()
    }
    let base = Syscalls.resolvingLinks(existing) ?? existing
    return missing.isEmpty ? base : base.appending(missing)
  }

  /// The suffixes of the names of ``SiblingNames``.
  private static let siblingSuffixes = ["versions", "lock", "tmp", "ready", "old", "journal", "probe"]

  private static func isSaveSibling(_ name: String) -> Bool {
    siblingSuffixes.contains { SiblingNames.owner(of: RawName(name), suffix: $0) != nil }
  }

  /// The name of a package's version store in the existing folder `path`, if it holds one.
  private static func versionStore(in path: FilePath) -> String? {
    guard (try? Syscalls.statusFollowing(path))?.kind == .directory,
      let (_, entries) = try? Syscalls.listDirectory(path)
    else { return nil }
    return entries.first { SiblingNames.owner(of: RawName($0.rawName), suffix: "versions") != nil }?.name
  }
}
