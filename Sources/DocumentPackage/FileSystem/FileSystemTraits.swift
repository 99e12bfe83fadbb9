import SystemPackage

/// What the file system a package lives on can do that the save protocols rely on, found out by
/// trying it once per mount in each process (``FileSystemMemo``).
///
/// ext4, xfs, btrfs and tmpfs do everything; sshfs links files and renames directories but does not
/// exchange (and numbers a renamed directory anew); exFAT (exfat-fuse) renames directories but neither
/// links nor exchanges; FAT (fusefat) does neither and loses what is in a directory renamed with
/// entries in it. A file system that cannot exchange two names is saved by journal (``SaveJournal``);
/// every other by the exchange of a tree built beside the package (``Saver``).
package struct FileSystemTraits: Sendable {
  /// `renameat2(RENAME_EXCHANGE)` swaps two names.
  package var exchangesNames: Bool
  /// A directory renamed with an entry in it still has the entry.
  package var renamesFilledDirectories: Bool
  /// A file linked or written may move to another inode (overlayfs copies a lower layer's file up).
  package var copiesUp: Bool

  /// Whether saves go by journal here: a tree built beside the package cannot be exchanged with the
  /// old one in one step.
  package var savesByJournal: Bool { !exchangesNames }

  /// The traits of the file systems this process tried.
  private static let memo = FileSystemMemo<FileSystemTraits>()

  /// The traits of the file system of the directory `parentFD`, trying them beside the package
  /// (`.NAME.docpkg-probe`, removed again; ``Recovery`` removes one a kill left) the first time.
  /// - Throws: ``PackageError`` if the parent cannot be written (the save could not write either).
  static func of(parentFD: CInt, names: SiblingNames) throws -> FileSystemTraits {
    try of(directory: parentFD, probe: names.probe, path: names.parent)
  }

  /// The traits of the file system of the directory `fd` (at `path`, for messages), trying them in
  /// a folder `probe` made there and removed again, the first time in this process.
  /// - Throws: ``PackageError`` if the directory cannot be written.
  package static func of(directory fd: CInt, probe: RawName, path: FilePath) throws -> FileSystemTraits {
    let identity: FileSystemIdentity
    do { identity = try Syscalls.fileSystemIdentity(of: fd) } catch {
      throw PackageError.io(error, "cannot read status of", path: path.string)
    }
    if let traits = memo.value(for: identity) { return traits }
    let traits = try trying(in: fd, probe, shown: path.appending(probe.string))
    memo.remember(traits, for: identity)
    return traits
  }

  private static func trying(in parentFD: CInt, _ probe: RawName, shown: FilePath) throws -> FileSystemTraits {
    func fail(_ action: String, _ error: Errno) -> PackageError {
      PackageError.io(error, "cannot \(action)", path: shown.string, context: "while trying the file system")
    }
    try? TreeRemoval.remove(probe, in: parentFD)
    defer { try? TreeRemoval.remove(probe, in: parentFD) }
    let fd: CInt
    do {
      try Syscalls.makeDirectory(in: parentFD, probe)
      fd = try Syscalls.openDirectory(in: parentFD, probe)
    } catch { throw fail("create directory", error) }
    defer { Syscalls.closeFile(fd) }
    let (file, other, filled, moved) = (RawName("f"), RawName("g"), RawName("d"), RawName("e"))
    do {
      for name in [file, other] { Syscalls.closeFile(try Syscalls.createFile(in: fd, name)) }
      try Syscalls.makeDirectory(in: fd, filled)
      let inner = try Syscalls.openDirectory(in: fd, filled)
      defer { Syscalls.closeFile(inner) }
      Syscalls.closeFile(try Syscalls.createFile(in: inner, file))
    } catch { throw fail("create a file in", error) }
    let exchanges =
      (try? Syscalls.rename(from: fd, file, to: fd, other, flags: Syscalls.renameExchange)) != nil
    var renames = false
    if (try? Syscalls.rename(from: fd, filled, to: fd, moved)) != nil,
      let inner = try? Syscalls.openDirectory(in: fd, moved)
    {
      // Listed, not looked up: the kernel's cache of names still finds the entry a FUSE file system lost.
      renames = (try? Syscalls.entries(ofDirectory: inner))?.contains { $0.name == file } == true
      Syscalls.closeFile(inner)
    }
    let copiesUp = (try? Syscalls.fileSystemType(of: parentFD)) == Syscalls.overlayFileSystemType
    return FileSystemTraits(exchangesNames: exchanges, renamesFilledDirectories: renames, copiesUp: copiesUp)
  }
}
