import SystemPackage

/// The package root an in-place save loaded, held open from just before the save's last check
/// until its swap is verified, so that the save never commits into a directory that is not it.
///
/// Another program can replace the package while a save builds: `rm -rf P && cp -a Other P`, or
/// `rm -rf P; mv Other P`. The check just before the commit point (``Saver/beforeCommit``) sees a
/// replacement made before it; one made after it, before the swap, would have the save exchange
/// its new tree with the stranger's root (a whole save), or with a folder of it, or rename an
/// entry into it (a part save). So:
///
/// - Before the last check, the root at the package's path is opened and must be the directory
///   the model was loaded from (device and inode): otherwise the save fails as for a replaced
///   package, and as for a deleted one when nothing is there. Held open, its inode number cannot
///   be given to a new directory (`cp`'s) until the save is done.
/// - Right after the swap (``displacedIsLoaded(in:_:)`` for a whole save: the tree the exchange
///   moved out must be it; ``holdsThePackage()`` for a part save: the package's path must still name
///   it, or nothing, the package having been moved), before anything is made durable, swept or handed to the version store. Otherwise the
///   ``Saver`` swaps back at once and fails the save, the stranger's directory back in place as it
///   was. What another program wrote into the save's tree in the instant it was in place is not
///   lost: that tree is kept beside the package (``Saver`` names where in the error), not removed.
final class LoadedRootHold {
  let path: FilePath
  /// The root, open (closed with the hold).
  private let root: HeldDirectory
  private let device: UInt64
  private let inode: UInt64
  /// The root's status when it was opened.
  let status: FileStatus

  /// Opens the root at `path` and checks it is the one loaded (`loaded`, the model root's status).
  /// - Throws: ``PackageError`` (`conflict`) naming `path` when nothing is there or another directory is.
  init(path: FilePath, loaded: FileStatus) throws {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, [.readOnly, .directory, .noFollow]) } catch {
      throw PackageError(
        .conflict, "cannot save: the package was moved or deleted while it was saved:", path: path.string,
        context: "(nothing was changed)", errno: error)
    }
    guard let status = try? Syscalls.status(of: fd), status.device == loaded.device, status.inode == loaded.inode
    else {
      Syscalls.closeFile(fd)
      throw Self.replaced(path)
    }
    self.path = path
    root = HeldDirectory(adopting: fd, path: path)
    self.device = status.device
    self.inode = status.inode
    self.status = status
  }

  /// Whether the entry `name` in `parentFD` (what a whole save's exchange moved out) is the held root.
  func displacedIsLoaded(in parentFD: CInt, _ name: RawName) -> Bool {
    guard let status = try? Syscalls.status(in: parentFD, name) else { return false }
    return status.device == device && status.inode == inode
  }

  /// Whether a part save's swap, made inside a folder opened by path after the root was held, went
  /// into the package: its path still names the held root, or nothing is there and the held root
  /// is still linked (the package was moved, whole, after the folder was opened: the save is in it,
  /// as a moved package keeps what was saved into it). False when another directory is at the path
  /// (the folder may be the stranger's) or the held root was removed.
  func holdsThePackage() -> Bool {
    do {
      let status = try Syscalls.statusNoFollow(path)
      return status.device == device && status.inode == inode
    } catch  where error == .noSuchFileOrDirectory {
      return ((try? Syscalls.status(of: root.fd))?.linkCount ?? 0) > 0
    } catch {
      return false
    }
  }

  /// The error of a save that found another directory at the package's path.
  static func replaced(_ path: FilePath, keptAt kept: FilePath? = nil) -> PackageError {
    PackageError(
      .conflict, "cannot save: the package was replaced by another directory while it was saved:", path: path.string,
      context: kept.map { "(nothing of it was changed; the state this save built is kept at \($0.string))" }
        ?? "(nothing was changed)")
  }
}
