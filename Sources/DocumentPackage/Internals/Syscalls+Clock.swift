import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscalls {
  /// The time now on the clock the kernel stamps files' times from (`CLOCK_REALTIME`), to compare with them.
  package static func realTimeNow() -> FileTime {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return FileTime(seconds: Int64(now.tv_sec), nanoseconds: Int32(now.tv_nsec))
  }
}
