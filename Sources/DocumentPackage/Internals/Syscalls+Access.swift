import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscalls {
  /// Whether this process may create and remove entries in the directory at `path`
  /// (`access(W_OK | X_OK)`; false on a read-only file system).
  package static func isWritableDirectory(_ path: FilePath) -> Bool {
    path.withPlatformString { access($0, W_OK | X_OK) } == 0
  }
}
