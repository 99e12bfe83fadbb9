import SystemPackage

/// Which directory a package's root is: the one rule by which the library tells whether the
/// directory at a package's path (or one held open, or one a save's exchange moved aside) is the
/// root a model was loaded from or last saved as.
///
/// Device and inode number alone do not say it. ext4 gives a freed inode number again at once, and
/// a replacement finished while nothing held the old root open (`rm -rf P && cp -a Other P` between
/// a load and its save) gets the old root's number back, with the times `cp -a` copied. So the root's
/// birth time (`statx`'s `STATX_BTIME`, read when the model is loaded or saved) is compared too:
/// a directory made after the loaded root is another one, whatever its number.
///
/// Where the file system records no birth time (FAT, exFAT, most FUSE and network file systems,
/// kernels before 4.11), or records one that changes (overlayfs: a directory of the lower layer keeps
/// its inode number but takes the birth time of its upper copy when first changed), ``birth`` is nil
/// and the identity is the device and inode alone: there a replacement given the old root's inode
/// number is not told apart. No other time can stand in:
/// the root's change and modification times move with this library's own saves (and the other
/// program's `cp -a` copies the modification time), so they would take the package's own root for
/// a stranger's without catching the case they were meant for.
///
/// Callers: ``LoadedRootHold`` (a save's root, held from its last check to its swap), the version
/// store's record of its package (``StoreIdentity``), a ``Document``'s held root and its check for a
/// package replaced by another (`Document+MovedPackage`, `Document+ReplacedPackage`),
/// ``MovedPackage`` and the monitor's look at the package (`WatchedTree.checkRoot()`).
struct RootIdentity: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  /// When the directory was made; nil where the file system does not say (see above).
  var birth: FileTime?

  init(device: UInt64, inode: UInt64, birth: FileTime?) {
    self.device = device
    self.inode = inode
    self.birth = birth
  }

  /// The identity `Syscalls.identity` read; nil when it is not a directory's.
  init?(_ found: (device: UInt64, inode: UInt64, isDirectory: Bool, birth: FileTime?)) {
    guard found.isDirectory else { return nil }
    self.init(device: found.device, inode: found.inode, birth: found.birth)
  }

  /// The directory at `path`, not following a last link; nil if nothing or no directory is there.
  static func at(_ path: FilePath) -> RootIdentity? {
    (try? Syscalls.identity(path)).flatMap(RootIdentity.init)
  }

  /// The directory open as `fd`; nil if it cannot be read or is no directory.
  static func of(_ fd: CInt) -> RootIdentity? {
    (try? Syscalls.identity(in: fd, "")).flatMap(RootIdentity.init)
  }

  /// The directory `name` in the directory open as `dirfd`; nil if nothing or no directory is there.
  static func entry(_ name: RawName, in dirfd: CInt) -> RootIdentity? {
    name.withCString { try? Syscalls.identity(in: dirfd, $0) }.flatMap(RootIdentity.init)
  }

  /// Whether `other` is the same directory: the same device and inode, and the same birth time
  /// where both know one (see above).
  func isSame(as other: RootIdentity) -> Bool {
    guard device == other.device, inode == other.inode else { return false }
    guard let birth, let otherBirth = other.birth else { return true }
    return birth == otherBirth
  }
}
