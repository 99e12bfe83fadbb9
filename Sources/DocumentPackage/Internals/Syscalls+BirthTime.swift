import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscalls {
  /// When the inode at `path` was made (`statx`'s birth time), not following a last symbolic link;
  /// nil where the file system does not record it (ext4, XFS, btrfs and tmpfs do; FAT, exFAT and
  /// most FUSE and network file systems do not, nor kernels before 4.11) or the path cannot be read.
  package static func birthTime(_ path: FilePath) -> FileTime? {
    var seconds: CLongLong = 0
    var nanoseconds: CUnsignedInt = 0
    let found = try? resolving(path) { dirfd, name throws(Errno) in
      try retrying { docpkg_birth_time(dirfd, name, &seconds, &nanoseconds) }
    }
    guard found != nil else { return nil }
    return FileTime(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
  }

  /// When the inode `name` in the directory `dirfd` was made, not following a link (see
  /// ``birthTime(_:)``).
  package static func birthTime(in dirfd: CInt, _ name: RawName) -> FileTime? {
    var seconds: CLongLong = 0
    var nanoseconds: CUnsignedInt = 0
    let found = name.withCString { pointer in
      try? retrying { docpkg_birth_time(dirfd, pointer, &seconds, &nanoseconds) }
    }
    guard found != nil else { return nil }
    return FileTime(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
  }
}

extension Syscalls {
  /// Device, inode, whether it is a directory, and birth time (nil where not recorded: see
  /// ``birthTime(_:)``) of the inode `name` in `dirfd` — `dirfd` itself for an empty name — read in
  /// one call, not following a last link.
  package static func identity(
    in dirfd: CInt, _ name: UnsafePointer<CChar>
  ) throws(Errno) -> (device: UInt64, inode: UInt64, isDirectory: Bool, birth: FileTime?) {
    var device: CUnsignedLongLong = 0
    var inode: CUnsignedLongLong = 0
    var isDirectory: CInt = 0
    var seconds: CLongLong = 0
    var nanoseconds: CUnsignedInt = 0
    var hasBirth: CInt = 0
    _ = try retrying {
      docpkg_identity(dirfd, name, &device, &inode, &isDirectory, &seconds, &nanoseconds, &hasBirth)
    }
    let birth = hasBirth != 0 ? FileTime(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds)) : nil
    return (UInt64(device), UInt64(inode), isDirectory != 0, birth)
  }

  /// As ``identity(in:_:)``, of the entry at `path`.
  package static func identity(
    _ path: FilePath
  ) throws(Errno) -> (device: UInt64, inode: UInt64, isDirectory: Bool, birth: FileTime?) {
    try resolving(path) { dirfd, name throws(Errno) in try identity(in: dirfd, name) }
  }
}
