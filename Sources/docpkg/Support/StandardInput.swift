import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
  /// `directory` (beside the package, so on the same file system: a save links it in rather than
  /// copy it). The spool file has no name (`O_TMPFILE`; where that is refused, it is unlinked as soon
  /// as it is made), so a crash leaves nothing behind; `cleanup` closes it.
  static func asFile(spoolingIn directory: FilePath) throws -> (source: DiskFileSource, cleanup: () -> Void) {
    if (try? Syscalls.status(of: 0))?.kind == .file, Syscalls.currentOffset(0) == 0 {
      return (try DiskFileSource(path: "/dev/stdin"), {})
    }
    let fd = try openSpoolFile(in: directory)
    let cleanup = { Syscalls.closeFile(fd) }
    do {
      try forEachChunk { chunk in
        do throws(Errno) { try Syscalls.writeAll(fd, chunk) } catch {
          throw PackageError.io(error, "cannot spool standard input in", path: directory)
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

  /// Reads standard input to its end in chunks of 1 MiB.
  private static func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try Syscalls.readChunks(0, path: "standard input", body)
  }
}
