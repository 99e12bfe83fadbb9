import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Paths longer than the kernel takes in one call (`PATH_MAX`, 4096 bytes: a package a few thousand
/// directories deep): the calls by path below go through ``Syscalls/resolving(_:_:)``, which opens
/// the leading directories at most `PATH_MAX` bytes at a time, each relative to the one before, and
/// hands the call the last of them and the rest of the path. A short path costs nothing extra.
/// Resolution is the kernel's own, piece by piece: links on the way are followed as one `open`
/// would follow them, and the last component is the caller's to follow or not.
extension Syscalls {
  /// The longest path given to one system call (`PATH_MAX` counts the NUL).
  static let longestPath = Int(PATH_MAX) - 1

  /// Calls `body` with a directory descriptor and a path relative to it (`AT_FDCWD` and `path`
  /// itself when it is short enough) that name `path`.
  /// - Throws: `Errno` of opening a leading directory, or of `body`.
  package static func resolving<T>(
    _ path: FilePath, _ body: (CInt, UnsafePointer<CChar>) throws(Errno) -> T
  ) throws(Errno) -> T {
    let bytes = path.withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }
    if bytes.count <= longestPath {
      return try (bytes + [0]).withUnsafeBufferPointer { buffer throws(Errno) in try body(AT_FDCWD, buffer.baseAddress!)
      }
    }
    var dirfd = AT_FDCWD
    defer { if dirfd != AT_FDCWD { closeFile(dirfd) } }
    var start = 0
    let slash = CChar(UInt8(ascii: "/"))
    while bytes.count - start > longestPath {
      // The longest run of whole components that fits, opened as a directory relative to the last.
      var cut = start + longestPath
      while cut > start && bytes[cut] != slash { cut -= 1 }
      guard cut > start || (start == 0 && bytes[0] == slash) else { throw .fileNameTooLong }
      let prefix = cut == start ? [slash, 0] : Array(bytes[start..<cut]) + [0]
      let next = try retrying {
        prefix.withUnsafeBufferPointer { openat(dirfd, $0.baseAddress!, DOCPKG_O_PATH | O_DIRECTORY | O_CLOEXEC) }
      }
      if dirfd != AT_FDCWD { closeFile(dirfd) }
      dirfd = next
      start = cut + 1
      while start < bytes.count && bytes[start] == slash { start += 1 }
    }
    let rest = start == bytes.count ? [CChar(UInt8(ascii: ".")), 0] : Array(bytes[start...]) + [0]
    return try rest.withUnsafeBufferPointer { buffer throws(Errno) in try body(dirfd, buffer.baseAddress!) }
  }
}
