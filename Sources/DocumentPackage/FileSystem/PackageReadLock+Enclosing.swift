import SystemPackage

extension PackageReadLock {
  /// The package that `path` is, or lies in: the nearest folder on `path` (`path` itself first,
  /// symbolic links resolved) that is known to be a package — its parent folder holds its version
  /// store or writer's lock file (`.NAME.docpkg-versions`, `.NAME.docpkg-lock`), or it carries a
  /// package identity (see ``PackageReference``). A reader of a folder inside a package (`docpkg
  /// inspect Trip.mydoc/Pages`) takes that package's read lock: saves lock the package's root,
  /// never its subfolders.
  ///
  ///     let lock = try PackageReadLock(forPackageAt: PackageReadLock.enclosingPackage(of: pages) ?? pages)
  ///
  /// A package that has never kept a version, is not being written and carries no identity cannot be
  /// told from any other folder; a folder inside it is then read as if it were a package of its own
  /// (``PackageReadLock/init(forPackageAt:waitLimit:)`` on it excludes no save).
  /// - Parameter path: A package, or a file or folder inside one.
  /// - Returns: `path` when it is itself the package, else the package's absolute path; nil when no
  ///   folder on `path` is known to be a package.
  public static func enclosingPackage(of path: FilePath) -> FilePath? {
    guard let resolved = Syscalls.resolvingLinks(path) else { return nil }
    var folder = resolved
    if (try? Syscalls.statusNoFollow(folder))?.kind != .directory { folder = folder.removingLastComponent() }
    while let name = folder.lastComponent, name.kind == .regular {
      let parent = folder.removingLastComponent()
      let isPackage =
        [".\(name.string).docpkg-versions", ".\(name.string).docpkg-lock"].contains {
          (try? Syscalls.statusNoFollow(parent.appending($0))) != nil
        } || PackageIdentity.read(at: folder) != nil
      if isPackage { return folder == resolved ? path : folder }
      folder = parent
    }
    return nil
  }
}
