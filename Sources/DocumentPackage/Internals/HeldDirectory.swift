import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory held open (O_PATH where the platform has it) to open paths below it, closed with
/// the handle: what lets many opens below one package's root resolve only their own components
/// (``Syscalls/openBeneath(in:_:_:)``).
package final class HeldDirectory: Sendable {
  /// The directory's path, as opened.
  package let path: FilePath
  package let fd: CInt

  /// Opens the directory at `path` (following links: it is the path a package was opened at).
  package init(_ path: FilePath) throws(Errno) {
    self.path = path
    fd = try Syscalls.openFile(path, DOCPKG_O_PATH | O_DIRECTORY)
  }

  /// Takes `fd`, a directory opened at `path`, closed with the handle.
  package init(adopting fd: CInt, path: FilePath) {
    self.path = path
    self.fd = fd
  }

  deinit { Syscalls.closeFile(fd) }
}
