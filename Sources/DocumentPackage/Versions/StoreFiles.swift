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

/// Whole-file reads and atomic writes for the version store's small files.
enum StoreFiles {
  /// Creates a directory; an existing one is fine.
  static func makeDirectory(_ path: FilePath) throws(Errno) {
    do { try Syscalls.makeDirectory(in: AT_FDCWD, RawName(path: path), mode: 0o755) } catch .fileExists {}
  }

  static func names(in directory: FilePath) throws(Errno) -> [String] {
    let fd = try Syscalls.openFile(directory, O_RDONLY | O_DIRECTORY)
    defer { Syscalls.closeFile(fd) }
    return try Syscalls.entries(ofDirectory: fd).map(\.name.string)
  }

  static func read(_ path: FilePath) throws -> Data {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, O_RDONLY) } catch {
      throw PackageError(
        error == .noSuchFileOrDirectory ? .noSuchEntry : .io, "cannot open", path: path.string, errno: error)
    }
    defer { Syscalls.closeFile(fd) }
    var data = Data()
    try Syscalls.readChunks(fd, path: path, chunkSize: 1 << 16) { data.append(contentsOf: $0) }
    return data
  }

  /// Writes `data` to a new file in `temporary`, syncs it, and renames it to `path`, then syncs
  /// `path`'s directory: afterwards `path` is the whole new file, or (after a kill) the old one.
  static func writeAtomically(_ data: Data, to path: FilePath, temporary: FilePath) throws {
    let staging = temporary.appending("w\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    do throws(Errno) {
      let fd = try Syscalls.openFile(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
      defer { Syscalls.closeFile(fd) }
      try write(data, to: fd)
      try Syscalls.synchronize(fd)
    } catch {
      _ = staging.withPlatformString { unlink($0) }
      throw PackageError(.io, "cannot write", path: staging.string, errno: error)
    }
    do {
      try Syscalls.rename(from: AT_FDCWD, RawName(path: staging), to: AT_FDCWD, RawName(path: path))
      try syncDirectory(path.removingLastComponent())
    } catch {
      _ = staging.withPlatformString { unlink($0) }
      throw PackageError(.io, "cannot rename into place", path: path.string, errno: error)
    }
  }

  static func write(_ data: Data, to fd: CInt) throws(Errno) {
    let result = data.withUnsafeBytes { bytes in Result { () throws(Errno) in try Syscalls.writeAll(fd, bytes) } }
    try result.get()
  }

  static func syncDirectory(_ path: FilePath) throws(Errno) {
    let fd = try Syscalls.openFile(path, O_RDONLY | O_DIRECTORY)
    defer { Syscalls.closeFile(fd) }
    try Syscalls.synchronize(fd)
  }
}
