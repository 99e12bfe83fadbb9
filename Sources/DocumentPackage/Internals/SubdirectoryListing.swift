import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscalls {
  /// The subdirectories of the directory at `path` on `device`, with their status.
  ///
  /// Mount points are left out and symbolic links not followed. Entries whose `d_type` says they are not
  /// directories are passed over before anything is allocated for them, so that a folder of
  /// 100,000 files costs its `getdents` calls and little more (the search for a moved package
  /// lists thousands of folders).
  /// - Throws: `Errno` when the directory cannot be opened or read.
  ///
  /// Paths are raw bytes (``RawName/init(path:)``) rather than `FilePath`s, which cost more to
  /// build than the system calls here.
  package static func subdirectories(at path: RawName, onDevice device: UInt64) throws(Errno) -> [(
    name: RawName, status: FileStatus
  )] {
    let fd = try retrying { path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) } }
    var result: [(name: RawName, status: FileStatus)] = []
    try forEachPossibleSubdirectory(taking: fd) { name in
      var raw = CStat()
      guard fstatat(fd, name, &raw, AT_SYMLINK_NOFOLLOW) == 0, raw.st_mode & S_IFMT == S_IFDIR,
        UInt64(raw.st_dev) == device
      else { return }
      result.append((RawName(cString: name), FileStatus(raw)))
    }
    return result
  }

  /// Calls `body` with the name of each entry of the directory open as `fd` (closed when done) whose
  /// `d_type` says it is a directory or does not say, "." and ".." left out.
  private static func forEachPossibleSubdirectory(
    taking fd: CInt, _ body: (UnsafePointer<CChar>) -> Void
  ) throws(Errno) {
    let stream = try directoryStream(taking: fd)
    defer { closedir(stream) }
    while true {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { throw currentErrno }
        return
      }
      let type = Int32(entry.pointee.d_type)
      guard type == Int32(DT_DIR) || type == Int32(DT_UNKNOWN) else { continue }
      withUnsafePointer(to: &entry.pointee.d_name) { tuple in
        tuple.withMemoryRebound(to: CChar.self, capacity: 256) { name in
          if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return }
          body(name)
        }
      }
    }
  }
}

extension Syscalls {
  /// The names in the directory at `path` that may be subdirectories (`d_type` a directory, or unknown where the
  /// file system does not say), read with `getdents` alone: no entry is looked at (a folder of 100,000 files costs
  /// its `getdents` calls). Symbolic links are not followed, `path` included.
  /// - Throws: `Errno` when the directory cannot be opened or read.
  package static func possibleSubdirectoryNames(at path: FilePath) throws(Errno) -> [RawName] {
    var result: [RawName] = []
    try forEachPossibleSubdirectory(taking: openFile(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) { name in
      result.append(RawName(cString: name))
    }
    return result
  }
}

extension RawName {
  /// The path `self/name` (for a whole path made with ``init(path:)``).
  package func appending(_ name: RawName) -> RawName {
    var joined = self
    joined.bytes.removeLast()  // the NUL
    if joined.bytes.last != 0x2F { joined.bytes.append(0x2F) }
    joined.bytes += name.bytes
    return joined
  }

  /// The path as a `FilePath`.
  package var filePath: FilePath { withCString { FilePath(platformString: $0) } }
}
