import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Standard input, for `docpkg put PACKAGE ENTRY -`, and any other stream given as SOURCE (a
/// FIFO, such as the `/dev/fd/63` of `<(cmd)`), read the same way.
enum StandardInput {
  /// A stream SOURCE, open for reading, and its name for messages.
  struct Stream {
    let fd: CInt
    let name: String
    static let standardInput = Stream(fd: 0, name: "standard input")
    /// Closes an opened stream (standard input stays open).
    func close() { if fd != 0 { Syscalls.closeFile(fd) } }
  }

  /// The FIFO or character device at `path`, opened for reading (`nil`: not a stream, read it
  /// as a file). The caller closes it.
  static func stream(at path: FilePath) throws -> Stream? {
    guard (try? Syscalls.statusFollowing(path))?.isStream == true else { return nil }
    do { return Stream(fd: try Syscalls.openFile(path, .readOnly), name: path.string) } catch {
      throw PackageError.io(error, "cannot open", path: path.string)
    }
  }

  /// Standard input (or `stream`) read whole (for `--append`, which must join it to the old contents).
  static func readAll(_ stream: Stream = .standardInput) throws -> Data {
    var data = Data()
    try forEachChunk(of: stream) { data.append(contentsOf: $0) }
    return data
  }

  /// Standard input as a file that a save copies from with bounded memory, whatever its size:
  /// standard input itself when it is a regular file (`< big.mov`), otherwise a spool file in
  /// `directory` (beside the package, so on the same file system: a save links it in rather than
  /// copy it). The spool file has no name (`O_TMPFILE`; where that is refused, it is unlinked as soon
  /// as it is made), so a crash leaves nothing behind; `cleanup` closes it.
  static func asFile(
    _ stream: Stream = .standardInput, spoolingIn directory: FilePath
  ) throws -> (source: DiskFileSource, cleanup: () -> Void) {
    if stream.fd == 0, (try? Syscalls.status(of: 0))?.kind == .file, Syscalls.currentOffset(0) == 0 {
      return (try DiskFileSource(path: "/dev/stdin"), {})
    }
    let fd = try openSpoolFile(in: directory)
    let cleanup = { Syscalls.closeFile(fd) }
    do {
      try forEachChunk(of: stream) { chunk in
        do throws(Errno) { try Syscalls.writeAll(fd, chunk) } catch {
          throw PackageError.io(error, "cannot spool \(stream.name) in", path: directory)
        }
      }
      return (try DiskFileSource(path: FilePath("/dev/fd/\(fd)")), cleanup)
    } catch {
      cleanup()
      throw error
    }
  }

  /// An unnamed file in `directory`, open for reading and writing; where the file system there has
  /// no `O_TMPFILE` (FAT, exFAT, sshfs: none can link it into the package either), in the temporary
  /// directory instead: a FUSE file system cannot open a file through `/dev/fd` once it is unlinked.
  private static func openSpoolFile(in directory: FilePath) throws -> CInt {
    let temporary = FilePath(ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
    for place in [directory, temporary] where !OpenOptions.unnamedTemporary.isEmpty {
      if let unnamed = try? Syscalls.openFile(place, [.unnamedTemporary, .readWrite], mode: 0o600) { return unnamed }
    }
    let directory = temporary
    let name = directory.appending(TemporaryName.make("stdin"))
    let fd: CInt
    do { fd = try Syscalls.openFile(name, [.readWrite, .create, .exclusive], mode: 0o600) } catch {
      throw PackageError.io(error, "cannot create a spool file for standard input in", path: directory)
    }
    try? Syscalls.unlink(name)
    return fd
  }

  /// Reads `stream` to its end in chunks of 1 MiB.
  private static func forEachChunk(of stream: Stream, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try Syscalls.readChunks(stream.fd, path: FilePath(stream.name), body)
  }
}
