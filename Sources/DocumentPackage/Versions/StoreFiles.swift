import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whole-file reads and atomic writes for the version store's small files.
enum StoreFiles {
  /// Creates a directory; an existing one is fine.
  static func makeDirectory(_ path: FilePath) throws(Errno) {
    do { try Syscalls.makeDirectory(in: currentDirectory, RawName(path: path), mode: 0o755) } catch .fileExists {}
  }

  static func names(in directory: FilePath) throws(Errno) -> [String] {
    let fd = try Syscalls.openFile(directory, [.readOnly, .directory])
    defer { Syscalls.closeFile(fd) }
    return try Syscalls.entries(ofDirectory: fd).map(\.name.string)
  }

  /// ``read(_:)``, but nil when nothing is at `path` (any other failure throws: a file that cannot be read
  /// now is not taken for one that is gone).
  static func readIfPresent(_ path: FilePath) throws -> Data? {
    do { return try read(path) } catch let error as PackageError where error.errno == .noSuchFileOrDirectory {
      return nil
    }
  }

  static func read(_ path: FilePath) throws -> Data {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, .readOnly) } catch {
      throw PackageError.opening(error, "cannot open", path: path.string)
    }
    defer { Syscalls.closeFile(fd) }
    var data = Data()
    try Syscalls.readChunks(fd, path: path, chunkSize: 1 << 16) { data.append(contentsOf: $0) }
    return data
  }

  /// Writes `data` to a new file in `temporary`, `fsync`s it, and renames it to `path`, then `fsync`s
  /// `path`'s directory: afterwards `path` is the whole new file, or (after a kill) the old one.
  static func writeAtomically(_ data: Data, to path: FilePath, temporary: FilePath) throws {
    try AtomicFile.write(to: path, stagingIn: temporary) { fd in
      do throws(Errno) { try write(data, to: fd) } catch { throw PackageError.io(error, "cannot write", path: path) }
    }
  }

  static func write(_ data: Data, to fd: CInt) throws(Errno) {
    let result = data.withUnsafeBytes { bytes in Result { () throws(Errno) in try Syscalls.writeAll(fd, bytes) } }
    try result.get()
  }

  /// `syncfs(2)` of the file system `path` is on: everything written there is durable after it.
  static func flushFileSystem(of path: FilePath) throws(Errno) {
    let fd = try Syscalls.openFile(path, [.readOnly, .directory])
    defer { Syscalls.closeFile(fd) }
    try Syscalls.synchronizeFileSystem(fd)
  }

  static func flushDirectory(_ path: FilePath) throws(Errno) {
    let fd = try Syscalls.openFile(path, [.readOnly, .directory])
    defer { Syscalls.closeFile(fd) }
    try Syscalls.synchronize(fd)
  }
}
