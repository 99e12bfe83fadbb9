import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Unnamed files (`O_TMPFILE`) given a name once complete.
extension Syscalls {
  /// Whether an unnamed file can be given a name here: `O_TMPFILE` exists and `/proc/self/fd`
  /// is mounted (``linkUnnamed(_:to:_:)`` links through it).
  package static var canNameUnnamedFiles: Bool {
    #if os(Linux)
    return !OpenOptions.unnamedTemporary.isEmpty && access("/proc/self/fd", X_OK) == 0
    #else
    return false
    #endif
  }

  /// Gives the unnamed file `fd` (opened with `O_TMPFILE`, without `O_EXCL`) the name `name` in
  /// `dirfd`: `linkat` of `/proc/self/fd/FD` following the link (which, unlike `AT_EMPTY_PATH`,
  /// needs no privilege). Fails with EEXIST if the name is taken.
  package static func linkUnnamed(_ fd: CInt, to dirfd: CInt, _ name: RawName) throws(Errno) {
    let procPath = "/proc/self/fd/\(fd)"
    _ = try retrying { name.withCString { n in linkat(AT_FDCWD, procPath, dirfd, n, AT_SYMLINK_FOLLOW) } }
  }
}
