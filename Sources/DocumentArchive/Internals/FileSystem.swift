#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSystemShims
import SystemPackage

// The one place DocumentArchive calls libc. Thin wrappers that retry on EINTR and throw `Errno`;
// callers turn them into `PackageError`s naming the path.

/// libc's `write`, which the `write` methods below would otherwise shadow.
private func systemWrite(_ fd: CInt, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }

private func systemClose(_ fd: CInt) -> CInt { close(fd) }
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> CInt { open(path, flags, mode) }

enum FileSystem {
  @inline(__always)
  static func retrying<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T {
    while true {
      let result = body()
      if result != -1 { return result }
      if errno != EINTR { throw Errno(rawValue: errno) }
    }
  }

  static func open(_ path: String, _ flags: CInt, mode: mode_t = 0) throws(Errno) -> CInt {
    try retrying { systemOpen(path, flags | O_CLOEXEC, mode) }
  }

  static func open(in dirfd: CInt, _ name: String, _ flags: CInt, mode: mode_t = 0) throws(Errno) -> CInt {
    try retrying { openat(dirfd, name, flags | O_CLOEXEC, mode) }
  }

  /// Opens the directory `name` in `dirfd` without following a symbolic link.
  static func openDirectory(in dirfd: CInt, _ name: String) throws(Errno) -> CInt {
    try open(in: dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  }

  static func close(_ fd: CInt) { _ = systemClose(fd) }

  /// Writes `fd`'s data and metadata to the disk (F_FULLFSYNC on Darwin).
  static func synchronize(_ fd: CInt) throws(Errno) {
    _ = try retrying { docpkg_full_fsync(fd) }
  }

  /// Writes out everything cached for the file system holding `fd`: one call instead of an
  /// fsync per file of a tree just extracted.
  static func synchronizeFileSystem(_ fd: CInt) throws(Errno) {
    _ = try retrying { docpkg_syncfs(fd) }
  }

  static func makeDirectory(in dirfd: CInt, _ name: String, mode: mode_t) throws(Errno) {
    _ = try retrying { mkdirat(dirfd, name, mode) }
  }

  static func makeSymlink(in dirfd: CInt, _ name: String, destination: String) throws(Errno) {
    _ = try retrying { symlinkat(destination, dirfd, name) }
  }

  static func makeHardLink(from sourceDir: CInt, _ source: String, to dirfd: CInt, _ name: String) throws(Errno) {
    _ = try retrying { linkat(sourceDir, source, dirfd, name, 0) }
  }

  static func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
  }

  static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      offset += try retrying { systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset) }
    }
  }

  static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer, at position: Int64) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      offset += try retrying { pwrite(fd, bytes.baseAddress! + offset, bytes.count - offset, off_t(position) + off_t(offset)) }
    }
  }

  static func setMode(_ fd: CInt, _ mode: mode_t) throws(Errno) {
    _ = try retrying { fchmod(fd, mode) }
  }

  /// Sets access and modification time of an open file to `seconds.nanoseconds`.
  static func setModificationTime(_ fd: CInt, seconds: Int64, nanoseconds: Int32) throws(Errno) {
    var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
    _ = try retrying { futimens(fd, &times) }
  }

  /// Sets the times of `name` in `dirfd` itself, not of what a symbolic link points at.
  static func setModificationTime(in dirfd: CInt, _ name: String, seconds: Int64, nanoseconds: Int32) throws(Errno) {
    var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
    _ = try retrying { utimensat(dirfd, name, &times, AT_SYMLINK_NOFOLLOW) }
  }

  /// Whether anything (even a dangling link) is at `name` in `dirfd`.
  static func exists(in dirfd: CInt, _ name: String) -> Bool {
    var status = stat()
    return fstatat(dirfd, name, &status, AT_SYMLINK_NOFOLLOW) == 0
  }

  /// `lstat` kind bits and size of `name` in `dirfd`.
  static func status(in dirfd: CInt, _ name: String) throws(Errno) -> (mode: mode_t, size: Int64) {
    var status = stat()
    _ = try retrying { fstatat(dirfd, name, &status, AT_SYMLINK_NOFOLLOW) }
    return (status.st_mode, Int64(status.st_size))
  }

  static func size(of fd: CInt) throws(Errno) -> Int64 {
    var status = stat()
    _ = try retrying { fstat(fd, &status) }
    return Int64(status.st_size)
  }

  static func rename(in fromDir: CInt, _ from: String, to toDir: CInt, _ to: String, flags: UInt32) throws(Errno) {
    _ = try retrying { docpkg_renameat2(fromDir, from, toDir, to, flags) }
  }

  static var renameNoReplace: UInt32 { DOCPKG_RENAME_NOREPLACE }
  static var renameExchange: UInt32 { DOCPKG_RENAME_EXCHANGE }

  static func unlink(in dirfd: CInt, _ name: String, directory: Bool = false) throws(Errno) {
    _ = try retrying { unlinkat(dirfd, name, directory ? AT_REMOVEDIR : 0) }
  }

  /// Removes `name` in `dirfd` and everything below it, never following symbolic links.
  static func removeTree(in dirfd: CInt, _ name: String) throws(Errno) {
    let (mode, _) = try status(in: dirfd, name)
    guard mode & S_IFMT == S_IFDIR else { return try unlink(in: dirfd, name) }
    let fd = try openDirectory(in: dirfd, name)
    // Make it writable first (an archive may have made it read-only).
    _ = fchmod(fd, 0o700)
    guard let stream = fdopendir(fd) else {
      close(fd)
      throw Errno(rawValue: errno)
    }
    var names: [String] = []
    while let entry = readdir(stream) {
      let child = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      if child != ".", child != ".." { names.append(child) }
    }
    defer { closedir(stream) }
    let directory = Glibc.dirfd(stream)
    for child in names { try removeTree(in: directory, child) }
    try unlink(in: dirfd, name, directory: true)
  }

  /// Makes a fresh directory `.docpkg-<label>-<random>` in `dirfd` and returns its name.
  static func makeTemporaryDirectory(in dirfd: CInt, label: String) throws(Errno) -> String {
    while true {
      let name = ".docpkg-\(label)-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
      do {
        try makeDirectory(in: dirfd, name, mode: 0o700)
        return name
      } catch .fileExists {
        continue
      }
    }
  }

  static var processUmask: mode_t {
    let mask = umask(0o022)
    umask(mask)
    return mask
  }

  static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  static func isRegularFile(_ fd: CInt) -> Bool {
    var status = stat()
    return fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }
}

extension FileSystem {
  /// Up to `count` bytes from the start of the file, without moving its offset.
  static func prefix(of fd: CInt, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) }
    return n > 0 ? Array(bytes[..<n]) : []
  }
}
