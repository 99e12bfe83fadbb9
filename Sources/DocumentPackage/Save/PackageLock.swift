import SystemPackage

/// An advisory lock that serializes the writers of one package: an exclusive `flock` on the
/// file `.NAME.docpkg-lock` beside the package (not inside it, where a save would swap it away).
///
/// The lock belongs to the open file, so the kernel drops it when the holder exits or crashes:
/// a crashed writer never blocks the next one. The lock file itself stays (removing it would let
/// two writers lock two different files). Readers do not take the lock: saves are atomic.
///
/// Hold one lock across load, edit and save (as `docpkg put` does) so that no other writer
/// can slip in between; ``PackageDocument`` does this with ``PackageDocument/Options/holdLock``.
public final class PackageLock {
  /// The lock file.
  public let path: FilePath
  private var fd: CInt

  /// Takes the lock of the package at `packagePath`, waiting while another process holds it
  /// (or failing at once if `wait` is false).
  /// - Throws: ``PackageError`` with code `locked` if `wait` is false and the lock is taken,
  ///   `io` if the lock file cannot be created or locked (for example, a read-only parent directory).
  public init(forPackageAt packagePath: FilePath, wait: Bool = true) throws {
    let names = try SiblingNames(of: packagePath)
    path = names.path(names.lock)
    do { fd = try Syscalls.openLockFile(path) } catch {
      throw PackageError.io(error, "cannot create lock file", path: path.string)
    }
    do { try Syscalls.lock(fd, exclusive: true, wait: wait) } catch {
      Syscalls.closeFile(fd)
      if error == .wouldBlock {
        throw PackageError(.locked, "package is being saved by another process:", path: packagePath.string)
      }
      throw PackageError.io(error, "cannot lock", path: path.string)
    }
  }

  /// Drops the lock now rather than when the value goes away.
  public func unlock() {
    guard fd >= 0 else { return }
    Syscalls.closeFile(fd)  // closing the only descriptor drops the flock
    fd = -1
  }

  deinit { unlock() }
}
