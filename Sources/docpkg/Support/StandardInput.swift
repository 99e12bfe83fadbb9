import CSystemShims
import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input, for `docpkg put PACKAGE ENTRY -`.
enum StandardInput {
  /// Standard input read whole (for `--append`, which must join it to the old contents).
  static func readAll() throws -> Data {
    var data = Data()
    try forEachChunk { data.append(contentsOf: $0) }
    return data
  }

  /// Standard input as a file that a save copies from with bounded memory, whatever its size:
  /// standard input itself when it is a regular file (`< big.mov`), otherwise a spool file in
  /// `directory` (beside the package, so on the same file system). The spool file has no name
  /// (`O_TMPFILE`; where that is refused, it is unlinked as soon as it is made), so a crash
  /// leaves nothing behind; `cleanup` closes it.
  static func asFile(spoolingIn directory: FilePath) throws -> (source: DiskFileSource, cleanup: () -> Void) {
    var status = stat()
    if fstat(0, &status) == 0, status.st_mode & S_IFMT == S_IFREG, lseek(0, 0, SEEK_CUR) == 0 {
      return (try DiskFileSource(path: "/dev/stdin"), {})
    }
    let fd = try openSpoolFile(in: directory)
    let cleanup = { _ = close(fd) }
    do {
      try forEachChunk { chunk in
        var offset = 0
        while offset < chunk.count {
          let written = write(fd, chunk.baseAddress! + offset, chunk.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            throw PackageError(.io, "cannot spool standard input in", path: directory.string, errno: Errno(rawValue: errno))
          }
          offset += written
        }
      }
      return (try DiskFileSource(path: FilePath("/dev/fd/\(fd)")), cleanup)
    } catch {
      cleanup()
      throw error
    }
  }

  /// An unnamed file in `directory`, open for reading and writing.
  private static func openSpoolFile(in directory: FilePath) throws -> CInt {
    if DOCPKG_O_TMPFILE != 0 {
      let unnamed = directory.withPlatformString { open($0, DOCPKG_O_TMPFILE | O_RDWR | O_CLOEXEC, 0o600) }
      if unnamed >= 0 { return unnamed }
    }
    let name = directory.appending(".docpkg-stdin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let fd = name.withPlatformString { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
    guard fd >= 0 else {
      throw PackageError(.io, "cannot create a spool file for standard input in", path: directory.string,
                         errno: Errno(rawValue: errno))
    }
    _ = name.withPlatformString { unlink($0) }
    return fd
  }

  /// Reads standard input to its end in chunks of 1 MiB.
  private static func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let count = read(0, buffer.baseAddress, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        throw PackageError(.io, "cannot read", path: "standard input", errno: Errno(rawValue: errno))
      }
      if count == 0 { return }
      try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
  }
}
