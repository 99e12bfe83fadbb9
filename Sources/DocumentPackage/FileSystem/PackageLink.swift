import SystemPackage

/// A package given by a symbolic link: saves, locks and version stores go to the directory the link leads to,
/// so that a save replaces the package, never the link.
enum PackageLink {
  /// `path` with a symbolic link at its end resolved; `path` itself when it is no link (or leads nowhere).
  static func resolve(_ path: FilePath) -> FilePath {
    guard (try? Syscalls.statusNoFollow(path))?.kind == .symlink, let resolved = Syscalls.resolvingLinks(path)
    else { return path }
    return resolved
  }
}
