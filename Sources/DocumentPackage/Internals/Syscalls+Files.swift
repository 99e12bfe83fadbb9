import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How to open a file: `open(2)`'s flags under names that need no libc import.
package struct OpenOptions: OptionSet, Sendable {
  package var rawValue: CInt
  package init(rawValue: CInt) { self.rawValue = rawValue }

  package static var readOnly: OpenOptions { OpenOptions(rawValue: O_RDONLY) }
  package static var writeOnly: OpenOptions { OpenOptions(rawValue: O_WRONLY) }
  package static var readWrite: OpenOptions { OpenOptions(rawValue: O_RDWR) }
  package static var create: OpenOptions { OpenOptions(rawValue: O_CREAT) }
  /// With `create`: fail with EEXIST if the name is taken.
  package static var exclusive: OpenOptions { OpenOptions(rawValue: O_EXCL) }
  /// Fail (ELOOP) rather than follow a symbolic link at the last component.
  package static var noFollow: OpenOptions { OpenOptions(rawValue: O_NOFOLLOW) }
  /// Fail (ENOTDIR) unless the name is a directory.
  package static var directory: OpenOptions { OpenOptions(rawValue: O_DIRECTORY) }
  /// Do not block opening a FIFO or a device.
  package static var nonBlocking: OpenOptions { OpenOptions(rawValue: O_NONBLOCK) }
  package static var truncate: OpenOptions { OpenOptions(rawValue: O_TRUNC) }
  package static var append: OpenOptions { OpenOptions(rawValue: O_APPEND) }
  /// An unnamed file in the directory opened (`O_TMPFILE`); empty where the platform has none.
  package static var unnamedTemporary: OpenOptions { OpenOptions(rawValue: DOCPKG_O_TMPFILE) }
}

/// The descriptor of the current directory for the `*at` calls, so that a whole path can be passed as a name.
package let currentDirectory: CInt = AT_FDCWD

// Opening, reading and writing files by path or relative to a directory descriptor, with raw
// (byte) names so that names that are not UTF-8 work too.
extension Syscalls {
  package static func openFile(_ path: FilePath, _ options: OpenOptions, mode: CInterop.Mode = 0) throws(Errno) -> CInt
  {
    try openFile(path, options.rawValue, mode: mode)
  }

  package static func openFile(
    in dirfd: CInt, _ name: RawName, _ options: OpenOptions, mode: CInterop.Mode = 0
  ) throws(Errno) -> CInt {
    try retrying { name.withCString { openat(dirfd, $0, options.rawValue | O_CLOEXEC, mode) } }
  }

  /// Opens the directory at `path` (following links: a destination given by the user may be one).
  package static func openDirectory(_ path: FilePath) throws(Errno) -> CInt {
    try openFile(path, [.readOnly, .directory])
  }

  /// Writes all of `bytes` at `position`, without moving the file's offset.
  package static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer, at position: Int64) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      offset += try retrying {
        pwrite(fd, bytes.baseAddress! + offset, bytes.count - offset, off_t(position) + off_t(offset))
      }
    }
  }

  /// Up to `count` bytes from the start of the file, without moving its offset (empty on error).
  package static func readPrefix(_ fd: CInt, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let n = retryingRaw { bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) } }
    return n > 0 ? Array(bytes[..<n]) : []
  }

  /// Up to `count` bytes of `fd` from `position`, without moving its offset (fewer at the end of the file).
  package static func readBytes(_ fd: CInt, at position: Int64, count: Int) throws(Errno) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = bytes.withUnsafeMutableBytes { buffer in
        retryingRaw { pread(fd, buffer.baseAddress! + done, count - done, off_t(position) + off_t(done)) }
      }
      if n < 0 { throw currentErrno }
      if n == 0 { break }
      done += n
    }
    return Array(bytes[..<done])
  }

  /// A second descriptor for the open file `fd`, close-on-exec.
  package static func duplicate(_ fd: CInt) throws(Errno) -> CInt {
    try retrying { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
  }

  /// Moves the offset of `fd` to `offset` from the start; returns the new offset.
  @discardableResult
  package static func seek(_ fd: CInt, to offset: Int64) throws(Errno) -> Int64 {
    Int64(try retrying { lseek(fd, off_t(offset), SEEK_SET) })
  }

  /// The offset of `fd` (-1 when it has none, as for a pipe).
  package static func currentOffset(_ fd: CInt) -> Int64 { Int64(lseek(fd, 0, SEEK_CUR)) }

  /// Sets the permission bits (`fchmod`) from a `mode_t`. On a file system that stores no modes (FAT
  /// through fusefat answers ENOSYS, others EOPNOTSUPP) there is nothing to set, and that is no error:
  /// the modes live on in the model, versions and archives.
  package static func setMode(_ fd: CInt, _ mode: CInterop.Mode) throws(Errno) {
    do { _ = try retrying { fchmod(fd, mode) } } catch  where error == .noFunction || error == .notSupported {}
  }

  /// Sets the permission bits of the file `name` in `dirfd` (`fchmodat`, which follows a symbolic link: for
  /// a file the caller made there); nothing on a file system that stores no modes, as ``setMode(_:_:)``.
  package static func setMode(in dirfd: CInt, _ name: RawName, _ mode: CInterop.Mode) throws(Errno) {
    do { _ = try retrying { name.withCString { fchmodat(dirfd, $0, mode, 0) } } } catch
      where error == .noFunction || error == .notSupported
    {}
  }

  /// Removes the file (not a directory) at `path`.
  package static func unlink(_ path: FilePath) throws(Errno) {
    _ = try resolving(path) { dirfd, name throws(Errno) in try retrying { unlinkat(dirfd, name, 0) } }
  }

  /// `rename` flag: fail with EEXIST rather than replace (ENOSYS/EINVAL where unsupported).
  package static var renameNoReplace: CUnsignedInt { DOCPKG_RENAME_NOREPLACE }
  /// `rename` flag: swap the two names atomically (ENOSYS/EINVAL where unsupported).
  package static var renameExchange: CUnsignedInt { DOCPKG_RENAME_EXCHANGE }

  /// Whether anything (even a dangling link) is at `name` in `dirfd`: false only when nothing is
  /// there (ENOENT); any other failure (a permission error, say) is thrown, not taken for "absent".
  package static func exists(in dirfd: CInt, _ name: RawName) throws(Errno) -> Bool {
    do {
      _ = try status(in: dirfd, name)
      return true
    } catch  where error == .noSuchFileOrDirectory {
      return false
    }
  }

  /// Whether anything (even a dangling link) is at `path`; throws for errors other than ENOENT.
  package static func exists(_ path: FilePath) throws(Errno) -> Bool {
    do {
      _ = try statusNoFollow(path)
      return true
    } catch  where error == .noSuchFileOrDirectory {
      return false
    }
  }

  /// Makes a fresh, owner-only directory in `dirfd` named by ``TemporaryName`` for `label`, and returns its name.
  package static func makeTemporaryDirectory(in dirfd: CInt, label: String) throws(Errno) -> RawName {
    while true {
      let name = RawName(TemporaryName.make(label))
      do {
        try makeDirectory(in: dirfd, name, mode: 0o700)
        return name
      } catch .fileExists {
        continue
      }
    }
  }

  /// Removes `name` in `dirfd` and everything below it, never following symbolic links; nothing
  /// there is not an error. Directories the owner cannot write or search are made so first.
  package static func removeTree(in dirfd: CInt, _ name: RawName) throws(Errno) {
    try TreeRemoval.remove(name, in: dirfd)
  }
}
