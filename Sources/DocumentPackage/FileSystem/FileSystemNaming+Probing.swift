import SystemPackage

extension FileSystemNaming {
  /// The naming rules of the file system that holds the directory `directory`: probed there the first
  /// time this process meets that file system (``Syscalls/probeNames(in:)``: a few empty files created,
  /// looked up and removed at once), then remembered for it (its device and mount, ``FileSystemIdentity``).
  ///
  /// A directory that cannot be opened, or that takes no new file (read-only, no permission, full),
  /// gives ``posix`` (nothing will be written there anyway; the write's own error says why), and that
  /// answer is not remembered.
  /// - Returns: The rules, and the file system's identity when it could be read.
  package static func of(directory: FilePath) -> (naming: FileSystemNaming, fileSystem: FileSystemIdentity?) {
    guard let fd = try? Syscalls.openDirectory(directory) else { return (.posix, nil) }
    defer { Syscalls.closeFile(fd) }
    return of(directoryFD: fd)
  }

  /// The naming rules of the file system that holds the open directory `fd`, probed in `fd` itself:
  /// as ``of(directory:)``.
  package static func of(directoryFD fd: CInt) -> (naming: FileSystemNaming, fileSystem: FileSystemIdentity?) {
    of(fd) { Syscalls.probeNames(in: fd) }
  }

  /// The naming rules of the file system that holds the open directory `fd`, as ``of(directory:)``, probed
  /// (the first time) in `scratch`: a directory made in `fd` for the probe and removed, with everything
  /// in it, right after. A probe killed half-way leaves only `scratch`, which the caller's recovery removes
  /// (a save's temporary tree); one that failed half-way leaves nothing. Where the file system refuses
  /// `scratch`'s name, the probe runs in `fd` itself.
  /// - Throws: `Errno` when `scratch` cannot be made for another reason: nothing could be written in `fd` either.
  package static func of(directoryFD fd: CInt, probingIn scratch: RawName) throws(Errno) -> (
    naming: FileSystemNaming, fileSystem: FileSystemIdentity?
  ) {
    var failure: Errno?
    let result = of(fd) {
      try? TreeRemoval.remove(scratch, in: fd)  // a leftover of a killed probe or save
      do throws(Errno) { try Syscalls.makeDirectory(in: fd, scratch) } catch {
        // `scratch`'s own name refused (it holds the caller's, `?` on FAT): probed in `fd` itself, so that
        // the refusal can say which character.
        if [.invalidArgument, .noSuchFileOrDirectory, .notPermitted, .illegalByteSequence].contains(error) {
          return Syscalls.probeNames(in: fd)
        }
        failure = error
        return nil
      }
      defer { try? TreeRemoval.remove(scratch, in: fd) }
      guard let scratchFD = try? Syscalls.openDirectory(in: fd, scratch) else { return nil }
      defer { Syscalls.closeFile(scratchFD) }
      return Syscalls.probeNames(in: scratchFD)
    }
    if let failure { throw failure }
    return result
  }

  /// The naming rules of the file systems this process probed.
  private static let memo = FileSystemMemo<FileSystemNaming>()

  /// The rules of the file system of `fd`: remembered ones, else `probe`'s, remembered when it gives any.
  private static func of(_ fd: CInt, probe: () -> NameProbe?) -> (
    naming: FileSystemNaming, fileSystem: FileSystemIdentity?
  ) {
    guard let identity = try? Syscalls.fileSystemIdentity(of: fd) else { return (.posix, nil) }
    if let known = memo.value(for: identity) { return (known, identity) }
    guard let found = probe() else { return (.posix, identity) }
    let naming = FileSystemNaming(found)
    memo.remember(naming, for: identity)
    return (naming, identity)
  }
}
