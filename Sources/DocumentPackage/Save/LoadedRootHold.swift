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
///   the model was loaded from (``RootIdentity``: device, inode and birth time): otherwise the
///   save fails as for a replaced package, and as for a deleted one when nothing is there. Held
///   open, its inode number cannot be given to a new directory (`cp`'s) until the save is done;
///   before it was held, between the load and the save, it could (ext4 gives freed numbers again
///   at once), which the birth time tells.
/// - Right after the swap (``displacedIsLoaded(in:_:)`` for a whole save: the tree the exchange
///   moved out must be it; ``holdsThePackage()`` for a part save: the package's path must still
///   name it, or nothing, the package having been moved), before anything is made durable, swept
///   or handed to the version store. Otherwise the ``Saver`` swaps back at once and fails the save,
///   the stranger's directory back in place as it was. What another program wrote into the save's
///   tree in the instant it was in place is not lost: that tree is kept beside the package
///   (``Saver`` names where in the error), not removed.
final class LoadedRootHold {
  let path: FilePath
  /// The root, open (closed with the hold, and whoever else keeps it: the root a part save leaves).
  let root: HeldDirectory
  /// Which directory the root is (``RootIdentity``: its birth time too, so that a stranger given
  /// its inode number before it was held is not taken for it).
  let identity: RootIdentity

  /// Opens the root at `path` and checks it is the one loaded (`loaded`, the model root's
  /// ``PackageNode/loadedRootIdentity``).
  /// - Throws: ``PackageError`` (`conflict`) naming `path` when nothing is there or another directory is.
  init(path: FilePath, loaded: RootIdentity) throws {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, [.readOnly, .directory, .noFollow]) } catch {
      throw PackageError(
        .conflict, "cannot save: the package was moved or deleted while it was saved:", path: path.string,
        context: "(nothing was changed)", errno: error)
    }
    guard let identity = RootIdentity.of(fd), identity.isSame(as: loaded) else {
      Syscalls.closeFile(fd)
      throw Self.replaced(path)
    }
    self.path = path
    root = HeldDirectory(adopting: fd, path: path)
    self.identity = identity
  }

  /// Whether the entry `name` in `parentFD` (what a whole save's exchange moved out) is the held root.
  func displacedIsLoaded(in parentFD: CInt, _ name: RawName) -> Bool {
    RootIdentity.entry(name, in: parentFD)?.isSame(as: identity) ?? false
  }

  /// Whether a part save's swap, made inside a folder opened by path after the root was held, went
  /// into the package: its path still names the held root, or nothing is there and the held root
  /// is still linked (the package was moved, whole, after the folder was opened: the save is in it,
  /// as a moved package keeps what was saved into it). False when another directory is at the path
  /// (the folder may be the stranger's) or the held root was removed.
  func holdsThePackage() -> Bool {
    do {
      return RootIdentity(try Syscalls.identity(path))?.isSame(as: identity) ?? false
    } catch  where error == .noSuchFileOrDirectory {
      return isOnDisk
    } catch {
      return false
    }
  }

  /// Whether the held root is still a directory on disk, wherever it is now (moved, not removed).
  var isOnDisk: Bool { ((try? Syscalls.status(of: root.fd))?.linkCount ?? 0) > 0 }

  /// The error of a save that found another directory at the package's path.
  static func replaced(_ path: FilePath, keptAt kept: FilePath? = nil) -> PackageError {
    PackageError(
      .conflict, replacedMessage, path: path.string,
      context: kept.map { "(nothing of it was changed; the state this save built is kept at \($0.string))" }
        ?? "(nothing was changed)")
  }

  /// Whether `error` is that of a save that swapped back from another directory and kept what it
  /// built beside the package (``replaced(_:keptAt:)`` with a place): the one error that says where.
  static func keptBuiltState(_ error: PackageError) -> Bool {
    error.message == replacedMessage && error.context.contains(" kept at ")
  }

  private static let replacedMessage = "cannot save: the package was replaced by another directory while it was saved:"
}
