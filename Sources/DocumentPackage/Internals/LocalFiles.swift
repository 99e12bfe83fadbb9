import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Small files by path, for the folders a library keeps beside a package (DocumentSync's sync folder: remotes,
/// state, journals, tree objects) and the few files an app names (a credentials file): whole-file reads, atomic
/// and unsynced writes, appends, removal. Every failure is a ``PackageError`` naming the path and the reason.
package enum LocalFiles {
  /// The bytes of the file at `path`; nil when nothing is there.
  /// - Parameter limit: Files bigger than this are refused (code `unsupported`).
  /// - Throws: ``PackageError`` (code `io`) if it cannot be read.
  package static func read(_ path: FilePath, limit: Int64 = 1 << 30) throws -> Data? {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, [.readOnly]) } catch .noSuchFileOrDirectory {
      return nil
    } catch {
      throw PackageError.io(error, "cannot open", path: path)
    }
    defer { Syscalls.closeFile(fd) }
    if let size = try? Syscalls.status(of: fd).size, size > limit {
      throw PackageError(.unsupported, "file too big to read (over \(limit) bytes):", path: path.string)
    }
    var data = Data()
    try Syscalls.readChunks(fd, path: path, chunkSize: 1 << 16) { data.append(contentsOf: $0) }
    return data
  }

  /// Whether anything (even a dangling link) is at `path`.
  /// - Throws: ``PackageError`` (code `io`) for failures other than "no such file".
  package static func exists(_ path: FilePath) throws -> Bool {
    try Syscalls.io("cannot look at", path: path.string) { () throws(Errno) in try Syscalls.exists(path) }
  }

  /// Makes the directory at `path` and any missing parent (`mkdir -p`); an existing one is fine.
  /// - Returns: The directories made, the deepest first (what ``removeEmptyDirectories(_:)`` takes back).
  /// - Throws: ``PackageError`` (code `io`) naming the directory that cannot be made.
  @discardableResult
  package static func makeDirectories(_ path: FilePath, mode: CInterop.Mode = 0o755) throws -> [FilePath] {
    var missing: [FilePath] = []
    var next = path
    while !next.isEmpty, next != "/", (try? Syscalls.exists(next)) == false {
      missing.append(next)
      next = next.removingLastComponent()
    }
    var made: [FilePath] = []
    for directory in missing.reversed() {
      do {
        try Syscalls.makeDirectory(in: currentDirectory, RawName(path: directory), mode: mode)
        made.insert(directory, at: 0)
      } catch .fileExists {
      } catch {
        removeEmptyDirectories(made)
        throw PackageError.io(error, "cannot create directory", path: directory)
      }
    }
    return made
  }

  /// Removes each of `directories` that is empty, in order, stopping at the first that is not (or cannot be
  /// removed): undoes ``makeDirectories(_:mode:)`` after a failure.
  package static func removeEmptyDirectories(_ directories: [FilePath]) {
    for directory in directories {
      do throws(Errno) { try Syscalls.unlink(in: currentDirectory, RawName(path: directory), directory: true) } catch {
        return
      }
    }
  }

  /// Writes `data` to a temporary file beside `path`, syncs it and renames it over `path`, then syncs the
  /// directory (``AtomicFile``): afterwards `path` is the whole new file, or after a crash the old one. Makes
  /// missing parent directories.
  /// - Throws: ``PackageError`` (code `io`) naming `path`.
  package static func writeAtomically(_ data: Data, to path: FilePath) throws {
    try makeDirectories(path.removingLastComponent())
    try AtomicFile.write(to: path) { fd in try write(data, to: fd, path: path) }
  }

  /// Writes `data` under a temporary name beside `path` and renames it in, with no `fsync`: never a torn file
  /// while the machine runs, but after a machine crash maybe an empty or torn one. For caches whose contents are
  /// checked when read (a tree object against its name). Makes missing parent directories.
  /// - Throws: ``PackageError`` (code `io`) naming `path`.
  package static func writeUnsynced(_ data: Data, to path: FilePath) throws {
    try makeDirectories(path.removingLastComponent())
    let file = try AtomicFile(for: path, label: "write")
    try write(data, to: file.fd, path: path)
    try file.commit(to: path, syncing: false)
  }

  /// Opens the file at `path` for appending, creating it (and missing parent directories); the caller closes
  /// the descriptor (``Syscalls/closeFile(_:)``) and writes with ``append(_:to:path:)``.
  /// - Throws: ``PackageError`` (code `io`) naming `path`.
  package static func openForAppending(_ path: FilePath) throws -> CInt {
    try makeDirectories(path.removingLastComponent())
    do { return try Syscalls.openFile(path, [.writeOnly, .create, .append, .noFollow], mode: 0o644) } catch {
      throw PackageError.io(error, "cannot open", path: path, context: "to append to it")
    }
  }

  /// Appends `data` with one `write` to `fd` (opened with ``openForAppending(_:)``): concurrent appends of
  /// whole lines never mix.
  /// - Throws: ``PackageError`` (code `io`) naming `path`.
  package static func append(_ data: Data, to fd: CInt, path: FilePath) throws {
    try write(data, to: fd, path: path)
  }

  /// Renames `source` over `destination` (same file system).
  /// - Throws: ``PackageError`` (code `io`) naming `destination`.
  package static func rename(_ source: FilePath, to destination: FilePath) throws {
    try Syscalls.io("cannot rename \(source.string) to", path: destination.string) { () throws(Errno) in
      try Syscalls.rename(
        from: currentDirectory, RawName(path: source), to: currentDirectory, RawName(path: destination))
    }
  }

  /// Removes the file, link or whole directory tree at `path`; nothing there is fine.
  /// - Throws: ``PackageError`` (code `io`) naming `path`.
  package static func remove(_ path: FilePath) throws {
    let parent = path.removingLastComponent()
    guard let name = path.lastComponent else { return }
    let dirfd: CInt
    do { dirfd = try Syscalls.openDirectory(parent.isEmpty ? "." : parent) } catch {
      if error == .noSuchFileOrDirectory { return }
      throw PackageError.io(error, "cannot remove", path: path)
    }
    defer { Syscalls.closeFile(dirfd) }
    do { try Syscalls.removeTree(in: dirfd, RawName(name)) } catch {
      throw PackageError.io(error, "cannot remove", path: path)
    }
  }

  /// The absolute form of `path` against the current directory.
  package static func absolute(_ path: FilePath) -> FilePath {
    guard !path.isAbsolute else { return path.lexicallyNormalized() }
    return Syscalls.currentDirectoryPath().pushing(path).lexicallyNormalized()
  }

  private static func write(_ data: Data, to fd: CInt, path: FilePath) throws {
    let result = data.withUnsafeBytes { bytes in Result { () throws(Errno) in try Syscalls.writeAll(fd, bytes) } }
    do { try result.get() } catch { throw PackageError.io(error, "cannot write", path: path) }
  }
}
