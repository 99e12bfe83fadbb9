import SystemPackage

/// A file whose change time one of our own saves moved by making or removing a hard link to it, and
/// nothing else: its status just before, and its change time just after.
///
/// The version store's hash cache compares change times (a write in place whose modification time
/// was set back moves nothing else), and a save that rebuilds a directory links every unchanged
/// file in it into the new tree, then removes the old names. Told of these (``ReplacedStateKeeper``),
/// the cache takes the change time after for the one before, so that the save's own links do not
/// make the next settle or push read every relinked file again. A write in place between the
/// status before and the link (a few microseconds) is not told apart; one at any other time is.
package struct RelinkedFile: Sendable {
  package let before: FileStatus
  package let changedAfter: FileTime

  /// Nil unless `after` is still the regular file `before` was, with the same size and
  /// modification time (a link changes neither).
  package init?(before: FileStatus, after: FileStatus) {
    guard before.kind == .file, after.kind == .file, before.device == after.device, before.inode == after.inode,
      before.size == after.size, before.modificationTime == after.modificationTime
    else { return nil }
    self.before = before
    changedAfter = after.changeTime
  }

  /// Hard-links `name` in `source` as `newName` in `destination`, noting the file in `relinked`.
  /// - Parameter announce: Told the entry's status just before the link, when it could be read (a
  ///   save's build writes it down there, so that a kill right after the link leaves a trace of what
  ///   the link found: see `LinkNote`).
  /// - Returns: The new name's status, read just after the link (nil if it could not be read).
  @discardableResult
  package static func link(
    _ name: RawName, in source: CInt, as newName: RawName, in destination: CInt, noting relinked: inout [RelinkedFile],
    announce: ((FileStatus) -> Void)? = nil
  ) throws(Errno) -> FileStatus? {
    let before = try? Syscalls.status(in: source, name)
    if let before { announce?(before) }
    try Syscalls.link(from: source, name, to: destination, newName)
    let after = try? Syscalls.status(in: destination, newName)
    if let before, let after, let file = RelinkedFile(before: before, after: after) { relinked.append(file) }
    return after
  }

  /// Unlinks the file `name` in `dirfd`; one with other names (which live on) is noted in `relinked`.
  package static func unlink(_ name: RawName, in dirfd: CInt, noting relinked: inout [RelinkedFile]) throws(Errno) {
    guard let before = try? Syscalls.status(in: dirfd, name), before.kind == .file, before.linkCount > 1,
      let pin = try? Syscalls.openPinned(in: dirfd, name)
    else { return try Syscalls.unlink(in: dirfd, name, directory: false) }
    defer { Syscalls.closeFile(pin) }
    try Syscalls.unlink(in: dirfd, name, directory: false)
    if let after = try? Syscalls.status(of: pin), let file = RelinkedFile(before: before, after: after) {
      relinked.append(file)
    }
  }
}
