#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscalls {
  /// Whether two buffers hold the same bytes (`memcmp`).
  package static func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    guard a.count > 0 else { return true }
    return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
  }
}
