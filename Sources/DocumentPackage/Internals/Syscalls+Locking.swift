import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The calls behind reader–writer coordination (see `PackageReadLock` and `ReaderExclusion`):
// shared `flock` locks and one-byte open-file-description locks, never waiting in the kernel
// (waits are polled against a deadline, so none is unbounded), and a short pause between polls.
extension Syscalls {
  /// A one-byte open-file-description lock's kind.
  package enum ByteLock: CInt {
    case unlock = 0
    case read = 1
    case write = 2
  }

  /// Tries once to take a shared `flock` lock on `fd`; EWOULDBLOCK while an exclusive one is held.
  package static func lockSharedNow(_ fd: CInt) throws(Errno) {
    _ = try retrying { docpkg_flock_shared(fd, 1) }
  }

  /// Tries once to take an exclusive `flock` lock on `fd`; EWOULDBLOCK while any other is held.
  package static func lockExclusiveNow(_ fd: CInt) throws(Errno) {
    _ = try retrying { docpkg_flock(fd, 1, 1) }
  }

  /// Tries once to take or drop an open-file-description lock on byte `offset` of `fd`: EAGAIN
  /// or EACCES when another open file description holds a conflicting one; ENOSYS where the
  /// platform has no such locks (macOS).
  package static func lockByteNow(_ fd: CInt, _ kind: ByteLock, offset: Int64 = 0) throws(Errno) {
    _ = try retrying { docpkg_ofd_lock(fd, kind.rawValue, offset) }
  }

  /// Whether `error` says a lock is held by someone else (rather than that locking failed).
  package static func isLockConflict(_ error: Errno) -> Bool {
    error == .wouldBlock || error == .resourceTemporarilyUnavailable || error == .permissionDenied
  }

  /// Sleeps the calling thread for `microseconds` (between two polls of a lock).
  package static func pause(microseconds: Int) {
    var request = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: (microseconds % 1_000_000) * 1000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
  }
}
