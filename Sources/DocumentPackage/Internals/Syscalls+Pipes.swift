import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Pipes between threads of one process: `docpkg serve` streams a zip from the packer (which writes to a
// descriptor) to an HTTP response.
extension Syscalls {
  /// A new pipe, both ends close-on-exec.
  package static func makePipe() throws(Errno) -> (read: CInt, write: CInt) {
    var ends: [CInt] = [-1, -1]
    _ = try retrying { ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) } }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
  }

  /// Makes a write to a pipe whose reader is gone fail with `EPIPE` instead of ending the process (SIGPIPE):
  /// for a server, whose client may leave in the middle of a download.
  package static func ignoreBrokenPipes() {
    _ = signal(SIGPIPE, SIG_IGN)
  }
}
