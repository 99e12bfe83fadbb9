import SystemPackage

/// Where a package went that is no longer at its path, found through a descriptor held open on
/// its root directory: the kernel names an open directory's current path in `/proc/self/fd` (Linux
/// has no unprivileged open by file id), however it was renamed or moved within its file system.
///
/// The one rule by which a package is followed when it moves: the monitor's look at the package
/// (`WatchedTree.checkRoot()`), and a document's save that found its package gone from its path
/// (`Document+MovedPackage`). A directory deleted (the kernel appends ` (deleted)`), another
/// inode at the path named (bind mounts, a race), or the path where the package was are no move. Nor
/// is a path in a package's own entries (`.NAME.docpkg-…`, beside it under any name it had): a save
/// that replaced the package moves the state it replaced into `.NAME.docpkg-versions/…` or leaves it
/// at `.NAME.docpkg-tmp`, so the root went from its path, but not elsewhere as the package.
enum MovedPackage {
  /// The path the package that was at `packagePath`, whose root is open as `rootDescriptor` and is
  /// `root`, has moved to (see the comment above); nil if it did not move there.
  static func newPath(rootDescriptor: CInt, root: RootIdentity, from packagePath: FilePath) -> FilePath? {
    guard rootDescriptor >= 0,
      let current = try? Syscalls.readLinkPath(at: FilePath("/proc/self/fd/\(rootDescriptor)")),
      current != packagePath, !current.string.hasSuffix(" (deleted)"),
      RootIdentity.at(current)?.isSame(as: root) == true
    else { return nil }
    let ownEntry = current.components.contains { SiblingNames.isSiblingEntry($0.string) }
    return ownEntry ? nil : current
  }
}
