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
  /// The file systems whose files can change without this kernel's knowing, by their `statfs`
  /// type (``fileSystemType(of:)``; the magic numbers of `<linux/magic.h>`), with the name used in
  /// messages: network file systems (the server and its other clients write behind its back) and
  /// FUSE (whatever the daemon shows, sshfs's server side included). inotify reports only the
  /// changes made through this kernel, so it misses those. Local file systems (ext4, xfs, btrfs,
  /// tmpfs, overlayfs, …) are not here: inotify sees every change there.
  package static let fileSystemsChangedElsewhere: [Int64: String] = [
    0x6573_5546: "FUSE",  // FUSE_SUPER_MAGIC: sshfs, rclone, s3fs, virtiofs, exfat-fuse, fusefat, gvfs
    0x6969: "NFS",  // NFS_SUPER_MAGIC
    0x517B: "SMB/CIFS",  // SMB_SUPER_MAGIC
    0xFF53_4D42: "SMB/CIFS",  // CIFS_SUPER_MAGIC
    0xFE53_4D42: "SMB/CIFS",  // SMB2_SUPER_MAGIC
    0x0102_1997: "9P",  // V9FS_MAGIC: WSL's Windows drives, virtual machines' shared folders
    0x786F_4256: "VirtualBox shared folder",  // VBOXSF_SUPER_MAGIC
    0x7375_7245: "Coda",  // CODA_SUPER_MAGIC
    0x5346_414F: "AFS",  // AFS_SUPER_MAGIC
    0x6B41_4653: "AFS",  // AFS_FS_MAGIC (kAFS)
    0x00C3_6400: "Ceph",  // CEPH_SUPER_MAGIC
    0x0BD0_0BD0: "Lustre",  // LL_SUPER_MAGIC
    0x4750_4653: "GPFS",  // GPFS_SUPER_MAGIC
    0x0116_1970: "GFS2",  // GFS2_MAGIC: a cluster file system, other nodes write too
    0x7461_636F: "OCFS2",  // OCFS2_SUPER_MAGIC: likewise
  ]

  /// overlayfs's `statfs` type: a file on it may be copied up to another inode when linked or written.
  package static let overlayFileSystemType: Int64 = 0x794C_7630

  /// The type of the file system of the file open as `fd` (`fstatfs`'s `f_type`; 0 where there is none).
  package static func fileSystemType(of fd: CInt) throws(Errno) -> Int64 {
    var type: CLongLong = 0
    _ = try retrying { docpkg_file_system_type(fd, &type) }
    return Int64(type)
  }

  /// The type of the file system of the directory at `path` (``fileSystemType(of:)``), opened
  /// without following a last link.
  /// - Throws: `Errno` of opening it or of `fstatfs`.
  package static func fileSystemType(ofDirectory path: FilePath) throws(Errno) -> Int64 {
    let fd = try openFile(path, DOCPKG_O_PATH | O_DIRECTORY | O_NOFOLLOW)
    defer { closeFile(fd) }
    return try fileSystemType(of: fd)
  }
}
