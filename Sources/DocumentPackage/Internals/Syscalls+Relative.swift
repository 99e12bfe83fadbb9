import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscalls {
  /// Opens `name` in the directory `dirfd` (`openat`), close-on-exec.
  package static func openFile(in dirfd: CInt, _ name: FilePath.Component, _ flags: CInt) throws(Errno) -> CInt {
    let result = name.withPlatformString { pointer in
      retryingRaw { openat(dirfd, pointer, flags | O_CLOEXEC) }
    }
    if result == -1 { throw currentErrno }
    return result
  }

  /// Opens the NUL-terminated `name` in the directory `dirfd` (`openat`), close-on-exec; -1 and
  /// `errno` on failure (no retry: wrap in `retryingRaw`).
  package static func openAt(_ dirfd: CInt, _ name: UnsafePointer<CChar>, _ flags: CInt) -> CInt {
    openat(dirfd, name, flags | O_CLOEXEC)
  }

  /// Flags for reading a regular file that must not be a link, and must not block if it became a FIFO.
  package static var readOnlyNoFollow: CInt { O_RDONLY | O_NOFOLLOW | O_NONBLOCK }

  /// Flags for opening a directory to open files relative to it.
  package static var directoryForLookup: CInt { O_RDONLY | O_DIRECTORY }

  /// Flags for listing a directory that must not be a link.
  package static var readOnlyDirectoryNoFollow: CInt { O_RDONLY | O_DIRECTORY | O_NOFOLLOW }
}
