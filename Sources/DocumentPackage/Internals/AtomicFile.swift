import SystemPackage

/// A file that appears at its path whole, or not at all: written under a temporary name (see
/// ``TemporaryName``), synced, renamed over the path, and the path's directory synced.
///
///     try AtomicFile.write(to: path) { fd in try Syscalls.writeAll(fd, bytes) }
///
/// After a crash at any point the path holds the old file or the new one, never a part; the
/// temporary is removed on every failure (a kill may leave it: its name says it is ours).
/// The staging directory must be on the path's file system, for the rename.
package final class AtomicFile {
  /// The temporary file, open for writing.
  package let fd: CInt
  /// Where the temporary file is until ``commit(to:syncDirectory:)``.
  package let temporaryPath: FilePath
  /// The path errors name: the file being written when known, else the temporary.
  private let errorPath: FilePath
  private var isOpen = true
  private var isDone = false

  /// Creates a temporary file for `target` (known now or given to ``commit(to:syncDirectory:)``)
  /// in `directory`, by default `target`'s own directory.
  /// - Throws: ``PackageError`` (code `io`) naming `target`, or the temporary file without one.
  package init(for target: FilePath?, stagingIn directory: FilePath? = nil, label: String, mode: CInterop.Mode = 0o644)
    throws
  {
    let besideTarget = directory == nil
    let directory = directory ?? target?.removingLastComponent() ?? ""
    while true {
      let path = directory.appending(TemporaryName.make(label, for: besideTarget ? target?.lastComponent?.string : nil))
      do {
        fd = try Syscalls.openFile(path, [.writeOnly, .create, .exclusive, .noFollow], mode: mode)
        temporaryPath = path
        errorPath = target ?? path
        return
      } catch .fileExists {
        continue
      } catch {
        throw PackageError.io(error, "cannot create", path: target ?? path)
      }
    }
  }

  deinit { discard() }

  /// Syncs the temporary file, renames it to `path` (replacing what is there) and, with
  /// `syncDirectory`, syncs `path`'s directory so that the rename itself is durable.
  /// - Throws: ``PackageError`` (code `io`): "cannot write" the temporary file, "cannot rename
  ///   into place" `path`, or "cannot write directory". The temporary file is removed.
  package func commit(to path: FilePath, syncDirectory: Bool = true) throws {
    try commit(to: path, syncing: true, syncDirectory: syncDirectory)
  }

  /// Renames the temporary file to `path` (replacing what is there); with `syncing`, syncs it first and (with
  /// `syncDirectory`) `path`'s directory after, as ``commit(to:syncDirectory:)``. Without, the file is whole
  /// while the machine runs, and may be empty or torn after a machine crash: for caches checked when read.
  /// - Throws: ``PackageError`` (code `io`) as ``commit(to:syncDirectory:)`` does.
  package func commit(to path: FilePath, syncing: Bool, syncDirectory: Bool = true) throws {
    defer { discard() }
    if syncing {
      try Syscalls.io("cannot write", path: errorPath.string) { () throws(Errno) in try Syscalls.synchronize(fd) }
    }
    closeFile()
    try Syscalls.io("cannot rename into place", path: path.string) { () throws(Errno) in
      try Syscalls.rename(
        from: currentDirectory, RawName(path: temporaryPath), to: currentDirectory, RawName(path: path))
    }
    isDone = true
    guard syncing, syncDirectory else { return }
    let directory = path.removingLastComponent()
    try Syscalls.io("cannot write directory", path: directory.string) { () throws(Errno) in
      let dirfd = try Syscalls.openDirectory(directory.isEmpty ? "." : directory)
      defer { Syscalls.closeFile(dirfd) }
      try Syscalls.synchronize(dirfd)
    }
  }

  /// Closes and removes the temporary file (nothing once committed).
  package func discard() {
    closeFile()
    guard !isDone else { return }
    isDone = true
    try? Syscalls.unlink(temporaryPath)
  }

  private func closeFile() {
    guard isOpen else { return }
    isOpen = false
    Syscalls.closeFile(fd)
  }

  /// Writes the file at `path` through a temporary in `directory` (by default, `path`'s own):
  /// `body` writes it, then it is synced, renamed in and the directory synced.
  /// - Throws: what `body` throws, or ``PackageError`` as ``commit(to:syncDirectory:)`` does.
  package static func write(
    to path: FilePath, stagingIn directory: FilePath? = nil, label: String = "write", mode: CInterop.Mode = 0o644,
    syncDirectory: Bool = true, _ body: (CInt) throws -> Void
  ) throws {
    let file = try AtomicFile(for: path, stagingIn: directory, label: label, mode: mode)
    try body(file.fd)
    try file.commit(to: path, syncDirectory: syncDirectory)
  }
}
