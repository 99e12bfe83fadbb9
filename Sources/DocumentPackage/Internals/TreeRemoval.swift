import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes a file or directory tree with `unlinkat`, relative to directory descriptors.
package enum TreeRemoval {
  /// Removes `name` in `dirfd`, whatever it is (`isDirectory` when known, to skip trying `unlink`);
  /// nothing there is not an error.
  /// Directories without write or search permission for the owner are given it first.
  /// - Throws: `Errno` of the first failure.
  package static func remove(_ name: RawName, in dirfd: CInt, isDirectory: Bool = false) throws(Errno) {
    if !isDirectory {
      do {
        try Syscalls.unlink(in: dirfd, name, directory: false)
        return
      } catch {
        switch error {
        case .noSuchFileOrDirectory: return
        case .isDirectory, .notPermitted: break  // Linux says EISDIR, POSIX allows EPERM
        default: throw error
        }
      }
    }
    let fd = try Syscalls.openDirectory(in: dirfd, name)
    defer { Syscalls.closeFile(fd) }
    let own = try Syscalls.status(of: fd)
    if own.permissions.rawValue & 0o300 != 0o300 {
      try Syscalls.setPermissions(fd, FilePermissions(rawValue: own.permissions.rawValue | 0o700))
    }
    for entry in try Syscalls.entries(ofDirectory: fd) {
      if entry.type == .directory || entry.type == .unknown {
        try remove(entry.name, in: fd, isDirectory: entry.type == .directory)
      } else {
        do { try Syscalls.unlink(in: fd, entry.name, directory: false) } catch  where error == .noSuchFileOrDirectory {}
      }
    }
    do { try Syscalls.unlink(in: dirfd, name, directory: true) } catch  where error == .noSuchFileOrDirectory {}
  }

  /// Whether anything (even a dangling link) is at `name` in `dirfd`.
  package static func exists(_ name: RawName, in dirfd: CInt) throws(Errno) -> Bool {
    do {
      _ = try Syscalls.status(in: dirfd, name)
      return true
    } catch  where error == .noSuchFileOrDirectory {
      return false
    }
  }
}
