import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageIdentity {
  /// The identity of the package at `path` (absolute, a directory), written first if it has none.
  ///
  /// Returns nil where no identity can be kept: the file system has no
  /// extended attributes, the package is read-only or another user's, or its lock cannot be
  /// taken (a read-only parent folder).
  ///
  /// Written under the package's lock, so that a save in another process (which builds the new
  /// root carrying the identity it read) cannot drop it. An identity that is not bound to this
  /// directory (a `cp -a` copy's) is replaced by a new one, or rebound here if `adopting`.
  /// - Throws: ``PackageError`` when the package cannot be opened or the attribute cannot be
  ///   written for another reason (no space left, an I/O error); `invalidArgument` when `path`
  ///   lies inside another package.
  static func establish(at path: FilePath, adopting: Bool) throws -> PackageIdentity? {
    if let status = try? Syscalls.statusNoFollow(path), let existing = read(at: path), existing.isBound(to: status) {
      return existing
    }
    let lock: PackageLock
    do { lock = try PackageLock(forPackageAt: path) } catch let error as PackageError where error.code == .io {
      return nil
    }
    defer { withExtendedLifetime(lock) {} }
    let fd: CInt
    do { fd = try Syscalls.openFile(path, [.readOnly, .directory, .noFollow]) } catch {
      throw PackageError.opening(error, "cannot open package", path: path.string)
    }
    defer { Syscalls.closeFile(fd) }
    do {
      let status = try Syscalls.status(of: fd)
      let existing = try read(fd)
      if let existing, existing.isBound(to: status) { return existing }
      let identity =
        if let existing, adopting { existing.rebound(to: status) } else {
          PackageIdentity(identifier: UUID(), device: status.device, inode: status.inode)
        }
      try identity.write(fd)
      return identity
    } catch {
      if error.refusesAttributes { return nil }
      throw PackageError.io(error, "cannot record the identity of", path: path, context: "(extended attribute)")
    }
  }
}
