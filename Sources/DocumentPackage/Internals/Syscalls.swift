import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The one place the core library calls libc. Each wrapper retries on EINTR and
// returns a `Result` or throws `Errno`, so callers decide which path to name in the error.

package typealias CStat = stat

package enum Syscalls {
  package static var currentErrno: Errno { Errno(rawValue: errno) }

  /// Runs `body` until it does not fail with EINTR; -1 becomes a thrown `Errno`.
  @inline(__always)
  package static func retrying<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T {
    let result = retryingRaw(body)
    if result == -1 { throw currentErrno }
    return result
  }

  /// Runs `body` until it does not fail with EINTR, returning its last result (errno intact).
  @inline(__always)
  package static func retryingRaw<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
      let result = body()
      if result != -1 || errno != EINTR { return result }
    }
  }

  package static func statusNoFollow(_ path: FilePath) throws(Errno) -> FileStatus {
    var raw = CStat()
    _ = try resolving(path) { dirfd, name throws(Errno) in
      try retrying { fstatat(dirfd, name, &raw, AT_SYMLINK_NOFOLLOW) }
    }
    return FileStatus(raw)
  }

  /// The process's current directory (`getcwd`); "." if it cannot be named (removed, or too long).
  package static func currentDirectoryPath() -> FilePath {
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return FilePath(platformString: buffer)
  }

  package static func statusFollowing(_ path: FilePath) throws(Errno) -> FileStatus {
    var raw = CStat()
    _ = try resolving(path) { dirfd, name throws(Errno) in try retrying { fstatat(dirfd, name, &raw, 0) } }
    return FileStatus(raw)
  }

  package static func status(of fd: CInt) throws(Errno) -> FileStatus {
    var raw = CStat()
    _ = try retrying { fstat(fd, &raw) }
    return FileStatus(raw)
  }

  /// `lstat` of `path`, a C string (for a walk that builds its paths as bytes).
  package static func statusNoFollow(cString path: UnsafePointer<CChar>) throws(Errno) -> FileStatus {
    var raw = CStat()
    _ = try retrying { lstat(path, &raw) }
    return FileStatus(raw)
  }

  package static func status(in dirfd: CInt, _ name: UnsafePointer<CChar>) throws(Errno) -> FileStatus {
    var raw = CStat()
    _ = try retrying { fstatat(dirfd, name, &raw, AT_SYMLINK_NOFOLLOW) }
    return FileStatus(raw)
  }

  package static func openFile(_ path: FilePath, _ flags: CInt, mode: mode_t = 0) throws(Errno) -> CInt {
    try resolving(path) { dirfd, name throws(Errno) in try retrying { openat(dirfd, name, flags | O_CLOEXEC, mode) } }
  }

  package static func closeFile(_ fd: CInt) { _ = close(fd) }

  /// Reads up to `count` bytes at the current offset; 0 means end of file.
  package static func readBytes(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try retrying { read(fd, buffer.baseAddress, buffer.count) }
  }

  /// Reads up to `buffer.count` bytes at `offset` (`pread`), without moving the file's offset; 0 means end of file.
  package static func readBytes(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno)
    -> Int
  {
    try retrying { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  /// The destination of the symbolic link `name` in directory `dirfd` (or at a path when `dirfd` is AT_FDCWD), as
  /// text that stands for exactly its bytes, as a name's do (``RawByteNames``, lookalikes escaped): valid UTF-8 kept,
  /// every other byte as its scalar U+F780–U+F7FF. ``makeSymbolicLink(in:_:destination:)`` writes the same bytes back.
  package static func readLink(in dirfd: CInt, _ name: UnsafePointer<CChar>) throws(Errno) -> String {
    RawByteNames.decode(try readLinkBytes(in: dirfd, name), escapingLookalikes: true)
  }

  /// The destination of the symbolic link `name` in directory `dirfd`, byte for byte.
  package static func readLinkBytes(in dirfd: CInt, _ name: UnsafePointer<CChar>) throws(Errno) -> [UInt8] {
    var capacity = 256
    while true {
      let (length, bytes) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
        let n = readlinkat(dirfd, name, buffer.baseAddress!, capacity)
        guard n >= 0 else { return (n, [UInt8]()) }
        return (n, Array(UnsafeRawBufferPointer(start: buffer.baseAddress, count: n)))
      }
      if length < 0 { throw currentErrno }
      if length < capacity { return bytes }
      capacity *= 4
    }
  }

  /// The alignment of read buffers: a page. The kernel copies a file's start from the page cache up
  /// to four times slower into a buffer that sits a little after a page boundary (malloc's 16 bytes:
  /// 4 KiB aliasing of its loads and stores), measured on 2–5 MiB files.
  package static let readBufferAlignment = 4096

  /// Reads `fd` from its current offset to the end, handing `body` chunks of at most `chunkSize`
  /// bytes from one reused buffer (memory bounded by `chunkSize`, whatever the file's size).
  /// - Throws: ``PackageError`` with code `io` naming `path`, or what `body` throws.
  package static func readChunks(
    _ fd: CInt, path: FilePath, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: readBufferAlignment)
    defer { buffer.deallocate() }
    while true {
      let count: Int
      do { count = try readBytes(fd, into: buffer) } catch {
        throw PackageError.io(error, "cannot read", path: path)
      }
      if count == 0 { return }
      try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
  }

  package static func readLink(at path: FilePath) throws(Errno) -> String {
    try resolving(path) { dirfd, name throws(Errno) in try readLink(in: dirfd, name) }
  }

  /// The destination of the symbolic link at `path` as a path, byte for byte (`/proc/self/exe`, `/proc/self/fd/N`).
  package static func readLinkPath(at path: FilePath) throws(Errno) -> FilePath {
    let bytes = try readLinkBytes(at: path).map { CChar(bitPattern: $0) } + [0]
    return bytes.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
  }

  package static func readLinkBytes(at path: FilePath) throws(Errno) -> [UInt8] {
    try resolving(path) { dirfd, name throws(Errno) in try readLinkBytes(in: dirfd, name) }
  }

  /// Maps `length` bytes of `fd` read-only. The mapping outlives `fd`.
  package static func mapReadOnly(_ fd: CInt, length: Int) throws(Errno) -> UnsafeMutableRawPointer {
    let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0)
    guard let address, address != MAP_FAILED else { throw currentErrno }
    return address
  }

  package static func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
    _ = munmap(address, length)
  }
}

/// What `lstat` said about a file when the package model looked at it: enough to notice later
/// that the file changed (inode, size, times) and to describe it (kind, permissions).
package struct FileStatus: Hashable, Sendable {
  package var kind: NodeKind?
  /// A FIFO or a character device: a file written as a stream, never replaced.
  package var isStream: Bool
  package var permissions: FilePermissions
  package var device: UInt64
  package var inode: UInt64
  package var linkCount: UInt64
  package var size: Int64
  package var modificationTime: FileTime
  package var changeTime: FileTime
  package var userID: UInt32
  package var groupID: UInt32

  package init(_ raw: CStat) {
    switch raw.st_mode & S_IFMT {
    case S_IFREG: kind = .file
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .symlink
    default: kind = nil
    }
    isStream = raw.st_mode & S_IFMT == S_IFIFO || raw.st_mode & S_IFMT == S_IFCHR
    permissions = FilePermissions(rawValue: CInterop.Mode(raw.st_mode & 0o7777))
    device = UInt64(raw.st_dev)
    inode = UInt64(raw.st_ino)
    linkCount = UInt64(raw.st_nlink)
    size = Int64(raw.st_size)
    #if canImport(Darwin)
    modificationTime = FileTime(seconds: Int64(raw.st_mtimespec.tv_sec), nanoseconds: Int32(raw.st_mtimespec.tv_nsec))
    changeTime = FileTime(seconds: Int64(raw.st_ctimespec.tv_sec), nanoseconds: Int32(raw.st_ctimespec.tv_nsec))
    #else
    modificationTime = FileTime(seconds: Int64(raw.st_mtim.tv_sec), nanoseconds: Int32(raw.st_mtim.tv_nsec))
    changeTime = FileTime(seconds: Int64(raw.st_ctim.tv_sec), nanoseconds: Int32(raw.st_ctim.tv_nsec))
    #endif
    userID = UInt32(raw.st_uid)
    groupID = UInt32(raw.st_gid)
  }
}
