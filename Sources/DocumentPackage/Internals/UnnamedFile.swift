import SystemPackage

/// A file written without a name (`O_TMPFILE` in its destination's directory) and linked into
/// place when complete, so that a process killed at any moment leaves nothing behind: the old
/// file or the complete new one, and no temporary.
///
///     try UnnamedFile.write(to: "/tmp/Trip.zip", label: "pack") { fd in try Syscalls.writeAll(fd, bytes) }
///
/// Where the file system or the kernel refuses `O_TMPFILE` (or `/proc` is not mounted), the file
/// is written under a hidden temporary name instead (``AtomicFile``): a kill then leaves that
/// temporary, whose name says it is ours.
package enum UnnamedFile {
  /// Writes the file at `path`: `body` writes it, then it is synced, linked in (a new name) or
  /// linked beside and renamed over the old file, and the directory is synced.
  /// - Throws: what `body` throws, or ``PackageError`` (code `io`) naming `path`.
  package static func write(
    to path: FilePath, label: String, mode: CInterop.Mode = 0o644, _ body: (CInt) throws -> Void
  ) throws {
    let directory = path.removingLastComponent()
    let directoryPath: FilePath = directory.isEmpty ? "." : directory
    guard Syscalls.canNameUnnamedFiles, let name = path.lastComponent,
      let fd = try? Syscalls.openFile(directoryPath, [.unnamedTemporary, .readWrite], mode: mode)
    else {
      // No O_TMPFILE here (an old kernel, a file system without it): a named temporary instead.
      try AtomicFile.write(to: path, label: label, mode: mode, body)
      return
    }
    defer { Syscalls.closeFile(fd) }
    try body(fd)
    try Syscalls.io("cannot write", path: path.string) { () throws(Errno) in try Syscalls.synchronize(fd) }
    let dirfd: CInt
    do { dirfd = try Syscalls.openDirectory(directoryPath) } catch {
      throw PackageError.io(error, "cannot open directory", path: directoryPath)
    }
    defer { Syscalls.closeFile(dirfd) }
    try Syscalls.io("cannot link into place", path: path.string) { () throws(Errno) in
      do throws(Errno) {
        // Nothing there: the name appears with the whole file behind it.
        try Syscalls.linkUnnamed(fd, to: dirfd, RawName(name))
      } catch .fileExists {
        // Replace atomically: link under a fresh hidden name, rename over (only this instant
        // between the two calls could leave a named temporary behind).
        while true {
          let temporary = RawName(TemporaryName.make(label, for: name.string))
          do throws(Errno) { try Syscalls.linkUnnamed(fd, to: dirfd, temporary) } catch .fileExists { continue }
          do throws(Errno) { try Syscalls.rename(from: dirfd, temporary, to: dirfd, RawName(name)) } catch {
            try? Syscalls.unlink(in: dirfd, temporary, directory: false)
            throw error
          }
          break
        }
      }
    }
    try Syscalls.io("cannot write directory", path: directoryPath.string) { () throws(Errno) in
      try Syscalls.synchronize(dirfd)
    }
  }
}
