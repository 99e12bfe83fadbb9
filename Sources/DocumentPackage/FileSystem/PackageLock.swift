import SystemPackage

/// An advisory lock that serializes the writers of one package: an exclusive `flock` on the
/// file `.NAME.docpkg-lock` beside the package (not inside it, where a save would swap it away).
///
/// Only writers take it (a save, a restore, `docpkg put`/`rm`/`check`, a version store change);
/// opening a package to read it takes no lock and creates nothing. The lock belongs to the open
/// file, so the kernel drops it when the holder exits or crashes: a crashed writer never blocks
/// the next one (it only leaves the empty lock file behind, which the next writer reuses).
///
/// **Nothing is left behind after a clean exit.** The classic safe pattern: the holder unlinks
/// the lock file *while still holding it exclusively*, then closes it; every locker, after its
/// `flock` returns, checks that the path still names the inode it locked, and if not (the holder
/// it waited for removed it meanwhile) closes it and starts again with a new file. So two writers
/// never hold locks on two different files at once.
///
/// **Readers are coordinated elsewhere.** Readers never take this lock (it is held from load to
/// save, which could be long, and a reader must create nothing): a ``PackageReadLock`` holds a
/// shared `flock` on the package's root directory, which a save takes exclusively only around its
/// swap. This file serves readers only as a turnstile: while it exists, a save about to swap holds
/// a one-byte write lock on it that new readers wait behind (see ``PackageReadLock``).
///
/// **No package inside a package.** Taking the lock refuses a path that lies inside another
/// package, so a mistaken path (`docpkg put A.mydoc/Pages x y`) never creates anything inside
/// `A.mydoc`. The rule, checked on the folders of the path as given: a folder `D` in `G` is a
/// package if `G` holds `D`'s version store (`.D.docpkg-versions`, made by its first save) or lock
/// file (`.D.docpkg-lock`, while someone writes it).
///
/// Hold one lock across load, edit and save (as `docpkg put` does) so that no other writer
/// can slip in between; ``PackageFile`` does this with ``PackageFile/Options/holdLock``.
package final class PackageLock {
  /// The lock file.
  package let path: FilePath
  private let names: SiblingNames
  private var fd: CInt

  /// Takes the lock of the package at `packagePath`, waiting while another process holds it
  /// (or failing at once if `wait` is false). With `recordingRoot` false, the lock file keeps the roots
  /// it names (a lock taken for another package's recovery: ``MovedLeftovers`` reads them under it).
  /// - Throws: ``PackageError`` with code `locked` if `wait` is false and the lock is taken,
  ///   `invalidArgument` if `packagePath` lies inside another package, `io` if the lock file
  ///   cannot be created or locked (for example, a read-only parent directory).
  package init(forPackageAt packagePath: FilePath, wait: Bool = true, recordingRoot: Bool = true) throws {
    try Self.refuseInsideAnotherPackage(packagePath)
    names = try SiblingNames(of: packagePath)
    path = names.path(names.lock)
    while true {
      let candidate: CInt
      do { candidate = try Syscalls.openLockFile(path) } catch {
        if let problem = Self.nameProblem(packagePath) { throw problem }
        throw PackageError.io(error, "cannot create lock file", path: path.string)
      }
      do { try Syscalls.lock(candidate, exclusive: true, wait: wait) } catch {
        Syscalls.closeFile(candidate)
        if error == .wouldBlock {
          throw PackageError(.locked, "package is being saved by another process:", path: packagePath.string)
        }
        throw PackageError.io(error, "cannot lock", path: path.string)
      }
      if Self.pathStillNames(candidate, path) {
        fd = candidate
        if recordingRoot { Self.recordRoot(of: packagePath, in: candidate) }
        return
      }
      Syscalls.closeFile(candidate)  // the holder we waited for removed it: lock the new one
    }
  }

  /// The error for a package name that the file system of its folder cannot hold (`a:b.mydoc` on
  /// FAT): a lock file named after it cannot be made either, and the name is the reason.
  private static func nameProblem(_ packagePath: FilePath) -> PackageError? {
    guard let name = packagePath.lastComponent?.string else { return nil }
    let parent = packagePath.removingLastComponent().isEmpty ? FilePath(".") : packagePath.removingLastComponent()
    let naming = FileSystemNaming.of(directory: parent).naming
    guard let reason = naming.problem(with: name) else { return nil }
    return NameClash(path: name, reason: reason, fileSystem: parent).error(
      "cannot use package", "in '\(parent.string)'")
  }

  /// Whether `path` names the file open as `fd` (not removed, not replaced by another lock file).
  /// Writes the device and inode of the package's root (`DEVICE INODE`) into the lock file just
  /// taken, when there is a package (best effort; a crashed holder leaves the file behind with it):
  /// so that what a save killed under this lock left beside the package is told as this package's
  /// after the package was renamed (see `MovedLeftovers`). Nothing is written for a package not
  /// there yet, so the file keeps naming the root its last holder saw.
  private static func recordRoot(of packagePath: FilePath, in fd: CInt) {
    guard let root = try? Syscalls.statusNoFollow(packagePath), root.kind == .directory else { return }
    let bytes = RootRecord.bytes(of: root)
    let written = bytes.withUnsafeBytes { buffer in (try? Syscalls.writeAll(fd, buffer, at: 0)) != nil }
    if written { try? Syscalls.setSize(fd, Int64(bytes.count)) }
  }

  /// Whether a writer holds the lock of the package `names` name now. Creates nothing and keeps nothing:
  /// opens the lock file if there is one and asks, without waiting, for a shared lock, dropped at once (a
  /// writer that comes meanwhile waits that long). A reader's question (see `Document+ReplacedPackage`).
  static func isHeld(_ names: SiblingNames) -> Bool {
    guard let fd = try? Syscalls.openFile(names.path(names.lock), [.readOnly, .noFollow]) else { return false }
    defer { Syscalls.closeFile(fd) }
    do { try Syscalls.lockSharedNow(fd) } catch { return error == .wouldBlock }
    return false
  }

  /// The devices and inodes of the package roots a lock file `name` in `parentFD` names (see
  /// `recordRoot(of:in:)` and ``recordSwappedInRoot(replacing:with:_:parentFD:)``); empty if it names none.
  static func recordedRoots(lockFile name: RawName, parentFD: CInt) -> [[UInt64]] {
    RootRecord.readAll(name, in: parentFD)
  }

  /// Makes the lock file of `names`, which this process holds, name the root a whole save is about to replace
  /// (`replaced`) and the one it exchanges in (`swappedIn`): a save killed right after that exchange leaves the
  /// replaced root (the version store's to keep) at the temporary name, with the new root at the package's name,
  /// and recovery after a rename tells the lock file as this package's by either (see `MovedLeftovers`). Written
  /// over the record, so that it stays two lines however many whole saves one hold of the lock makes. Best
  /// effort, as the lock's own record.
  static func recordSwappedInRoot(
    replacing replaced: FileStatus, with swappedIn: FileStatus, _ names: SiblingNames, parentFD: CInt
  ) {
    guard let fd = try? Syscalls.openFile(in: parentFD, names.lock, [.writeOnly, .noFollow]) else { return }
    defer { Syscalls.closeFile(fd) }
    let bytes = RootRecord.bytes(of: replaced) + RootRecord.bytes(of: swappedIn)
    let written = bytes.withUnsafeBytes { buffer in (try? Syscalls.writeAll(fd, buffer, at: 0)) != nil }
    if written { try? Syscalls.setSize(fd, Int64(bytes.count)) }
  }

  private static func pathStillNames(_ fd: CInt, _ path: FilePath) -> Bool {
    guard let held = try? Syscalls.status(of: fd), let named = try? Syscalls.statusNoFollow(path) else {
      return false
    }
    return held.device == named.device && held.inode == named.inode
  }

  /// Throws if a folder on `packagePath` is a package (see the rule in the type's documentation).
  static func refuseInsideAnotherPackage(_ packagePath: FilePath) throws {
    var folder = packagePath.removingLastComponent()
    while let name = folder.lastComponent, name.kind == .regular {
      let parent = folder.removingLastComponent()
      let container = parent.isEmpty ? FilePath(".") : parent
      for marker in [".\(name.string).docpkg-versions", ".\(name.string).docpkg-lock"]
      where try Syscalls.entryExists(container.appending(marker)) {
        throw PackageError(
          .invalidArgument, "a package cannot lie inside another package: '\(folder.string)' holds",
          path: packagePath.string)
      }
      folder = parent
    }
  }

  /// Drops the lock now rather than when the value goes away, removing the lock file first
  /// (while it is still held, so no other writer can be holding it).
  package func unlock() {
    guard fd >= 0 else { return }
    if let parent = try? Syscalls.openFile(names.parent, Syscalls.directoryForLookup) {
      try? Syscalls.unlink(in: parent, names.lock, directory: false)
      Syscalls.closeFile(parent)
    } else {
      try? Syscalls.unlink(names.path(names.lock))  // the folder could not be opened (no descriptor left, EIO)
    }
    Syscalls.closeFile(fd)  // closing the only descriptor drops the flock
    fd = -1
  }

  deinit { unlock() }
}
