import SystemPackage

/// Where a loaded package lives on disk. Shared by every node loaded from it, so that moving
/// the package (save-as) re-roots every not-yet-loaded node at once.
final class PackageLocation {
  var root: FilePath
  /// Nodes loaded from this package and since removed from their directory in memory, kept until
  /// the next save so that it can notice if their files changed on disk meanwhile (a save that
  /// deletes them would otherwise lose that change silently).
  var detachedNodes: [PackageNode] = []
  /// Whether each lazy load from disk checks that it reads what the model recorded (see
  /// ``PackageNode/verifyLoad(of:path:)``): set by ``Document`` for its model.
  var verifiesLoads = false
  /// Set when a verified load met a newer saved state than the model was loaded from.
  var metNewerState = false
  /// The root directory as the model was loaded from it or last saved it, with its birth time
  /// (see ``RootIdentity``): read when the root is loaded or re-based, and used only while the root
  /// node's origin still names the same device and inode (``PackageNode/loadedRootIdentity``).
  var loadedRoot: RootIdentity?
  init(root: FilePath, verifiesLoads: Bool = false) {
    self.root = root
    self.verifiesLoads = verifiesLoads
  }

  /// `lstat` of the entry at `relative` (a path in the package, `Data/a.txt`) now, its path put
  /// together as bytes: O(its length), where `root.appending(relative)` checks the path again for
  /// each component it adds (0.3 s for a path 3.6 KB long, in a debug build).
  func currentStatus(of relative: String) throws(Errno) -> FileStatus {
    try Self.currentStatus(of: relative, in: root)
  }

  /// `lstat` of the entry at `relative` in the package at `root` (see ``currentStatus(of:)``).
  static func currentStatus(of relative: String, in root: FilePath) throws(Errno) -> FileStatus {
    var bytes = relative
    let result = bytes.withUTF8 { bytes in
      root.withPlatformString { rootBytes in
        bytes.withMemoryRebound(to: CChar.self) { bytes in
          Result { () throws(Errno) in
            try DiskOrigin.statusNoFollow(
              joining: [UnsafeBufferPointer(start: rootBytes, count: root.length), bytes],
              orLong: FilePath(root.string + "/" + relative))
          }
        }
      }
    }
    return try result.get()
  }

  /// Whether a name looked up alone (`lstat`) finds only the entry of exactly that name: true on the local file
  /// systems that hold names apart byte for byte (ext4, XFS, btrfs, tmpfs, overlayfs, F2FS); false elsewhere
  /// (FAT and exFAT fold case, so `A.txt` finds `a.txt`; FUSE and network file systems may do anything), where a
  /// path walk lists the folder to see which name is there (see `PackageNode+Probing.swift`). Asked once.
  lazy var looksUpNamesExactly: Bool = {
    guard let type = try? Syscalls.fileSystemType(ofDirectory: root) else { return false }
    return Self.exactNaming.contains(type)
  }()

  /// The `statfs` types of ``looksUpNamesExactly``: ext2/3/4, XFS, btrfs, tmpfs, overlayfs, F2FS.
  private static let exactNaming: Set<Int64> = [
    0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x794C_7630, 0xF2F5_2010,
  ]
}

/// Where a node was loaded from, and what the file looked like then.
///
/// A node keeps its origin while it is moved or renamed inside the model, so an unchanged file
/// can still be read (and, when saving, hard-linked) from where it was loaded.
/// The path is kept as the containing directory's path (shared by all siblings) plus a name,
/// so listing a directory builds no path per entry.
struct DiskOrigin {
  let location: PackageLocation
  /// The containing directory's path relative to the package root; empty for the root and its children.
  let directory: FilePath
  /// The name in `directory`; `nil` for the root itself.
  let name: FilePath.Component?
  /// `lstat` of the file when it was listed (or last read).
  var status: FileStatus

  init(
    location: PackageLocation, directory: FilePath = FilePath(""), name: FilePath.Component? = nil, status: FileStatus
  ) {
    self.location = location
    self.directory = directory
    self.name = name
    self.status = status
  }

  /// An origin at `relativePath` below the package root (empty for the root).
  init(location: PackageLocation, relativePath: FilePath, status: FileStatus) {
    self.init(
      location: location, directory: relativePath.removingLastComponent(), name: relativePath.lastComponent,
      status: status)
  }

  /// The path relative to the package root; empty for the root itself.
  var relativePath: FilePath { Self.relativePath(directory, name) }

  /// The path relative to the package root of `name` in `directory` (`directory` itself without a name).
  static func relativePath(_ directory: FilePath, _ name: FilePath.Component?) -> FilePath {
    guard let name else { return directory }
    return directory.isEmpty ? FilePath(root: nil, [name]) : name.withPlatformString { joined(directory, $0) }
  }

  var absolutePath: FilePath { paths.absolute }

  /// ``relativePath`` and ``absolutePath``, the one made from the other.
  var paths: (relative: FilePath, absolute: FilePath) {
    let relative = relativePath
    return (relative, relative.isEmpty ? location.root : relative.withPlatformString { Self.joined(location.root, $0) })
  }

  /// Opens the entry for reading by its path below the package's root, following no symbolic link
  /// below the root (``Syscalls/openBeneath(_:_:_:)``): a folder on the path replaced by a link since
  /// it was listed is refused (`Errno.improperLink`), not read through.
  func open(_ options: OpenOptions) throws(Errno) -> CInt {
    try Syscalls.openBeneath(location.root, relativePath, options)
  }

  /// Lists the directory, opened as ``open(_:)`` opens.
  func list() throws(Errno) -> (FileStatus, [DirectoryEntry]) {
    try Syscalls.listDirectory(beneath: location.root, relativePath)
  }

  /// `lstat` of ``absolutePath`` now. The path is put together as bytes, not made a `FilePath`
  /// (which checks the whole path as it is made: a walk of every loaded node 1,000 directories
  /// deep would spend minutes on it); a path too long for one call goes through `FilePath`.
  func currentStatus() throws(Errno) -> FileStatus {
    let name = name.map { FilePath(root: nil, [$0]) } ?? FilePath("")
    let result = location.root.withPlatformString { root in
      directory.withPlatformString { directory in
        name.withPlatformString { nameBytes in
          Result { () throws(Errno) in
            try Self.statusNoFollow(
              joining: [
                UnsafeBufferPointer(start: root, count: location.root.length),
                UnsafeBufferPointer(start: directory, count: self.directory.length),
                UnsafeBufferPointer(start: nameBytes, count: name.length),
              ], orLong: absolutePath)
          }
        }
      }
    }
    return try result.get()
  }

  /// `lstat` of the path the byte strings `parts` make joined by `/` (empty ones left out), put
  /// together as bytes in one buffer; `long()` (a `FilePath` of the same path) when the path is too long
  /// for one call. O(length of the path).
  static func statusNoFollow(
    joining parts: [UnsafeBufferPointer<CChar>], orLong long: @autoclosure () -> FilePath
  ) throws(Errno) -> FileStatus {
    let count = parts.reduce(0) { $0 + $1.count + 1 }
    guard count < 4_000 else { return try Syscalls.statusNoFollow(long()) }
    var bytes = [CChar](repeating: 0, count: count + 1)
    var end = 0
    bytes.withUnsafeMutableBufferPointer { buffer in
      for part in parts where part.count > 0 {
        if end > 0, buffer[end - 1] != CChar(UInt8(ascii: "/")) {
          buffer[end] = CChar(UInt8(ascii: "/"))
          end += 1
        }
        (buffer.baseAddress! + end).update(from: part.baseAddress!, count: part.count)
        end += part.count
      }
    }
    bytes[end] = 0
    let result = bytes.withUnsafeBufferPointer { pointer in
      Result { () throws(Errno) in try Syscalls.statusNoFollow(cString: pointer.baseAddress!) }
    }
    return try result.get()
  }

  /// `base` and `rest` joined by `/`, built as bytes and made a `FilePath` once: `FilePath`'s
  /// `appending` and `pushing` check the whole path for each component they add, which made
  /// loading a package 10,000 directories deep take cubic time.
  static func joined(_ base: FilePath, _ rest: UnsafePointer<CChar>) -> FilePath {
    let restCount = String(cString: rest).utf8.count
    let baseCount = base.length
    return base.withPlatformString { basePointer in
      let needsSlash = baseCount == 0 || basePointer[baseCount - 1] != CChar(UInt8(ascii: "/"))
      let count = baseCount + (needsSlash ? 1 : 0) + restCount
      // Copied whole (not byte by byte): a path 1,000 directories deep is built for each node.
      let bytes = [CChar](unsafeUninitializedCapacity: count + 1) { buffer, initialized in
        let start = buffer.baseAddress!
        start.update(from: basePointer, count: baseCount)
        if needsSlash { start[baseCount] = CChar(UInt8(ascii: "/")) }
        (start + count - restCount).update(from: rest, count: restCount)
        start[count] = 0
        initialized = count + 1
      }
      return bytes.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }
  }

  /// The origin of an entry listed in this directory. `directoryPath` is this origin's
  /// `relativePath`, computed once per listing.
  func child(_ entry: DirectoryEntry, in directoryPath: FilePath) -> DiskOrigin {
    DiskOrigin(location: location, directory: directoryPath, name: entry.rawName, status: entry.status)
  }
}
