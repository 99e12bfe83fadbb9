import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file name as the bytes the file system holds (not necessarily UTF-8), NUL-terminated.
package struct RawName: Hashable {
  /// The bytes with a trailing NUL.
  package internal(set) var bytes: [CChar]

  package init(_ string: String) { bytes = Array(string.utf8CString) }

  package init(_ component: FilePath.Component) {
    bytes = component.withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) }
  }

  /// A whole path, for the `*at` calls with `AT_FDCWD`.
  package init(path: FilePath) {
    bytes = path.withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) }
  }

  /// A name from its bytes (without the NUL).
  package init(bytes: ArraySlice<UInt8>) {
    self.bytes = bytes.map { CChar(bitPattern: $0) } + [0]
  }

  package init(cString: UnsafePointer<CChar>) {
    bytes = Array(UnsafeBufferPointer(start: cString, count: strlen(cString) + 1))
  }

  /// The name for messages (invalid UTF-8 repaired).
  package var string: String { bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } }

  package func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
    try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
  }
}

/// The kind of a directory entry as `getdents` reports it (`d_type`), without a `stat`.
package enum EntryType {
  case file, directory, symlink, other, unknown
}

// Calls that change the file system, for saving. All relative to directory descriptors, so a
// tree of 100,000 entries is built without resolving a path per entry.
extension Syscalls {
  package static func openDirectory(in dirfd: CInt, _ name: RawName) throws(Errno) -> CInt {
    try retrying { name.withCString { openat(dirfd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) } }
  }

  package static func openForReading(in dirfd: CInt, _ name: RawName) throws(Errno) -> CInt {
    try retrying { name.withCString { openat(dirfd, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) } }
  }

  /// Creates a new regular file (`O_EXCL`) for writing, with owner-only permissions until `fchmod`.
  package static func createFile(in dirfd: CInt, _ name: RawName) throws(Errno) -> CInt {
    try retrying {
      name.withCString { openat(dirfd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600)) }
    }
  }

  package static func makeDirectory(in dirfd: CInt, _ name: RawName, mode: mode_t = 0o700) throws(Errno) {
    _ = try retrying { name.withCString { mkdirat(dirfd, $0, mode) } }
  }

  /// Creates the symbolic link `name` to the bytes `destination` stands for (``RawByteNames/encode(_:)``: each scalar
  /// U+F780–U+F7FF as its byte), so that a destination ``readLink(in:_:)`` read comes back byte for byte.
  package static func makeSymbolicLink(in dirfd: CInt, _ name: RawName, destination: String) throws(Errno) {
    try makeSymbolicLink(in: dirfd, name, destinationBytes: RawByteNames.encode(destination))
  }

  /// Creates the symbolic link `name` to `destinationBytes` as they are.
  package static func makeSymbolicLink(in dirfd: CInt, _ name: RawName, destinationBytes: [UInt8]) throws(Errno) {
    let destination = RawName(bytes: destinationBytes[...])
    _ = try retrying { name.withCString { n in destination.withCString { symlinkat($0, dirfd, n) } } }
  }

  /// A hard link `to/toName` of `from/fromName` (a symbolic link itself, not its destination).
  package static func link(from fromDir: CInt, _ fromName: RawName, to toDir: CInt, _ toName: RawName) throws(Errno) {
    _ = try retrying { fromName.withCString { f in toName.withCString { linkat(fromDir, f, toDir, $0, 0) } } }
  }

  /// Makes `toName` in `toDir` a new FIFO, socket or device node of the kind, permissions and device number of
  /// `fromName` in `fromDir` (where a hard link of it is refused). A device node needs the privilege to make one.
  package static func makeNode(
    like fromName: RawName, in fromDir: CInt, to toDir: CInt, _ toName: RawName
  ) throws(Errno) {
    var raw = CStat()
    _ = try retrying { fromName.withCString { fstatat(fromDir, $0, &raw, AT_SYMLINK_NOFOLLOW) } }
    let (mode, device) = (raw.st_mode, raw.st_rdev)
    _ = try retrying { toName.withCString { mknodat(toDir, $0, mode, device) } }
  }

  /// `renameat2(2)`; `flags` 0 calls plain `renameat(2)`, which every file system has.
  ///
  /// `renameNoReplace` where the file system cannot do it (exFAT and FAT through FUSE, sshfs: EINVAL;
  /// kernels without renameat2: ENOSYS) is a look and a plain rename: two steps, so a name another
  /// process takes between them is replaced (a file) or refused (a directory that is not empty).
  /// `renameExchange` has no such stand-in: its callers fall back themselves.
  package static func rename(
    from fromDir: CInt, _ fromName: RawName, to toDir: CInt, _ toName: RawName, flags: CUnsignedInt = 0
  ) throws(Errno) {
    do {
      _ = try retrying {
        fromName.withCString { f in
          toName.withCString { t in
            flags == 0 ? renameat(fromDir, f, toDir, t) : docpkg_renameat2(fromDir, f, toDir, t, flags)
          }
        }
      }
    } catch {
      guard flags == renameNoReplace, error == .invalidArgument || error == .noFunction else { throw error }
      if try exists(in: toDir, toName) { throw Errno.fileExists }
      try rename(from: fromDir, fromName, to: toDir, toName)
    }
  }

  /// A descriptor of `name` in `dirfd` (not following a symbolic link) that only pins the file, for `fstat`
  /// (`O_PATH` where there is one; elsewhere a read-only open).
  package static func openPinned(in dirfd: CInt, _ name: RawName) throws(Errno) -> CInt {
    try retrying { name.withCString { openat(dirfd, $0, DOCPKG_O_PATH | O_NOFOLLOW | O_CLOEXEC) } }
  }

  package static func unlink(in dirfd: CInt, _ name: RawName, directory: Bool) throws(Errno) {
    _ = try retrying { name.withCString { unlinkat(dirfd, $0, directory ? AT_REMOVEDIR : 0) } }
  }

  package static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      offset += try retrying { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
    }
  }

  package static func synchronize(_ fd: CInt) throws(Errno) {
    _ = try retrying { docpkg_full_fsync(fd) }
  }

  /// Starts writing `fd`'s dirty pages to the disk and returns at once: a later `synchronize` or
  /// `synchronizeFileSystem` then finds less to wait for. Advisory: failures are ignored (the later
  /// sync reports them).
  package static func startWriteback(_ fd: CInt) {
    _ = docpkg_start_writeback(fd)
  }

  package static func synchronizeFileSystem(_ fd: CInt) throws(Errno) {
    _ = try retrying { docpkg_syncfs(fd) }
  }

  /// Sets the permission bits (see ``setMode(_:_:)``: nothing on a file system without modes).
  package static func setPermissions(_ fd: CInt, _ permissions: FilePermissions) throws(Errno) {
    try setMode(fd, mode_t(permissions.rawValue))
  }

  /// Sets the modification time (access time too, to the same value) of an open file.
  package static func setModificationTime(_ fd: CInt, _ time: FileTime) throws(Errno) {
    var times = [
      timespec(tv_sec: Int(time.seconds), tv_nsec: Int(time.nanoseconds)),
      timespec(tv_sec: Int(time.seconds), tv_nsec: Int(time.nanoseconds)),
    ]
    _ = try retrying { futimens(fd, &times) }
  }

  /// Sets the access and modification times of an open file to the file system's current time.
  package static func setModificationTimeToNow(_ fd: CInt) throws(Errno) {
    _ = try retrying { futimens(fd, nil) }
  }

  /// Sets the modification time of `name` in `dirfd` without following a symbolic link.
  package static func setModificationTime(in dirfd: CInt, _ name: RawName, _ time: FileTime) throws(Errno) {
    var times = [
      timespec(tv_sec: Int(time.seconds), tv_nsec: Int(time.nanoseconds)),
      timespec(tv_sec: Int(time.seconds), tv_nsec: Int(time.nanoseconds)),
    ]
    _ = try retrying { name.withCString { utimensat(dirfd, $0, &times, AT_SYMLINK_NOFOLLOW) } }
  }

  package static func status(in dirfd: CInt, _ name: RawName) throws(Errno) -> FileStatus {
    let result = name.withCString { n in Result { () throws(Errno) in try status(in: dirfd, n) } }
    return try result.get()
  }

  package static func readLink(in dirfd: CInt, _ name: RawName) throws(Errno) -> String {
    let result = name.withCString { n in Result { () throws(Errno) in try readLink(in: dirfd, n) } }
    return try result.get()
  }

  package static func readLinkBytes(in dirfd: CInt, _ name: RawName) throws(Errno) -> [UInt8] {
    let result = name.withCString { n in Result { () throws(Errno) in try readLinkBytes(in: dirfd, n) } }
    return try result.get()
  }

  /// Shares all extents of `source` with `destination` (`FICLONE`).
  package static func cloneFile(from source: CInt, to destination: CInt) throws(Errno) {
    _ = try retrying { docpkg_ficlone(destination, source) }
  }

  /// Copies up to `count` bytes in the kernel from the current offsets; 0 means end of file.
  package static func copyRange(from source: CInt, to destination: CInt, count: Int) throws(Errno) -> Int {
    try retrying { docpkg_copy_file_range(source, destination, count) }
  }

  /// Takes (`exclusive`) or drops an advisory `flock` lock; with `wait` false, fails with EWOULDBLOCK if taken.
  package static func lock(_ fd: CInt, exclusive: Bool, wait: Bool = true) throws(Errno) {
    _ = try retrying { docpkg_flock(fd, exclusive ? 1 : 0, wait ? 0 : 1) }
  }

  /// Opens (creating if needed) a file that is only ever locked, never written.
  package static func openLockFile(_ path: FilePath) throws(Errno) -> CInt {
    try openFile(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o644)
  }

  /// The names and `d_type`s in an open directory (without `.` and `..`). Does not close `dirfd`.
  ///
  /// Read through a descriptor of its own, opened anew (`.` relative to `dirfd`), not a `dup` of `dirfd`: a `dup`
  /// shares the open directory's position and, through FUSE, its handle, and sshfs lists a handle once — a second
  /// listing of the same descriptor (recovery looks at the package's folder more than once) found it empty even after
  /// a rewind, and missed the journal a save of the package under its old name left there.
  package static func entries(ofDirectory dirfd: CInt) throws(Errno) -> [(name: RawName, type: EntryType)] {
    try entries(ofDirectory: dirfd, atMost: .max) ?? []
  }

  /// The entries of an open directory as ``entries(ofDirectory:)`` lists them, or nil when it holds more than
  /// `limit` (nothing more is read then).
  package static func entries(ofDirectory dirfd: CInt, atMost limit: Int) throws(Errno) -> [(
    name: RawName, type: EntryType
  )]? {
    let own = try openDirectory(in: dirfd, RawName("."))
    let stream = try directoryStream(taking: own)
    defer { closedir(stream) }
    var result: [(name: RawName, type: EntryType)] = []
    while true {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { throw currentErrno }
        break
      }
      let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
        tuple.withMemoryRebound(to: CChar.self, capacity: 256) { RawName(cString: $0) }
      }
      let bytes = name.bytes
      if bytes[0] == 0x2E && (bytes[1] == 0 || (bytes[1] == 0x2E && bytes[2] == 0)) { continue }
      let type: EntryType =
        switch Int32(entry.pointee.d_type) {
        case Int32(DT_REG): .file
        case Int32(DT_DIR): .directory
        case Int32(DT_LNK): .symlink
        case Int32(DT_UNKNOWN): .unknown
        default: .other
        }
      result.append((name, type))
      if result.count > limit { return nil }
    }
    return result
  }
}

extension Errno {
  /// Whether a hard link was refused for a reason a copy can work around: another file system,
  /// links not allowed or not supported, too many links.
  package var refusesLink: Bool {
    self == .improperLink || self == .notPermitted || self == .tooManyLinks || self == .notSupported
      || self == .notSupportedOnSocket
  }

  /// Whether `RENAME_EXCHANGE` was refused because the file system or kernel does not have it.
  package var refusesExchange: Bool {
    self == .invalidArgument || self == .noFunction || self == .improperLink || self == .notSupported
      || self == .notSupportedOnSocket
  }
}
