import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `fdopendir` returns.
#if canImport(Darwin)
typealias DirectoryStream = UnsafeMutablePointer<DIR>
#else
typealias DirectoryStream = OpaquePointer
#endif

extension Syscalls {
  /// A directory stream reading `fd`, which it takes over: closed with the stream (`closedir`), or here when
  /// no stream can be made.
  static func directoryStream(taking fd: CInt) throws(Errno) -> DirectoryStream {
    guard let stream = fdopendir(fd) else {
      let error = currentErrno
      closeFile(fd)
      throw error
    }
    return stream
  }
}

/// One entry of a directory as read from disk.
package struct DirectoryEntry {
  /// The name as a string; a name that is not valid UTF-8 is repaired (U+FFFD) here and kept exactly in `rawName`.
  package var name: String
  package var rawName: FilePath.Component
  package var status: FileStatus
  /// The link's destination, for symbolic links.
  package var destination: String?
}

extension Syscalls {
  /// Lists a directory with one `open`, `getdents` calls and one `fstatat` per entry.
  /// Entries of kinds the model does not hold (FIFOs, sockets, devices) are passed over.
  /// - Returns: the directory's own status (from the open descriptor) and its entries, sorted
  ///   byte-wise by name (sorted here, on raw bytes, because it is far cheaper than sorting Swift strings).
  package static func listDirectory(_ path: FilePath) throws(Errno) -> (FileStatus, [DirectoryEntry]) {
    try listDirectory(opened: openFile(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW))
  }

  /// Lists the directory `relative` below the directory `root` as ``listDirectory(_:)`` does, opened
  /// without following a symbolic link in any component of `relative` (``openBeneath(_:_:_:)``).
  package static func listDirectory(beneath root: FilePath, _ relative: FilePath) throws(Errno) -> (
    FileStatus, [DirectoryEntry]
  ) {
    try listDirectory(opened: openBeneath(root, relative, [.readOnly, .directory, .noFollow]))
  }

  /// Lists the directory open as `fd`, which it takes over (closes).
  private static func listDirectory(opened fd: CInt) throws(Errno) -> (FileStatus, [DirectoryEntry]) {
    let stream = try directoryStream(taking: fd)
    defer { closedir(stream) }
    let ownStatus = try status(of: fd)
    let (names, unsorted) = try readNames(stream)
    var starts = unsorted

    return try names.withUnsafeBufferPointer { buffer throws(Errno) in
      let base = buffer.baseAddress!
      starts.sort { strcmp(base + $0, base + $1) < 0 }
      var entries: [DirectoryEntry] = []
      entries.reserveCapacity(starts.count)
      for start in starts {
        let name = base + start
        let status: FileStatus
        do throws(Errno) { status = try self.status(in: fd, name) } catch {
          if error == .noSuchFileOrDirectory { continue }  // raced with a delete
          throw error
        }
        guard let kind = status.kind, let component = FilePath.Component(platformString: name) else { continue }
        let destination = kind == .symlink ? try readLink(in: fd, name) : nil
        let text = String(decoding: UnsafeRawBufferPointer(start: name, count: strlen(name)), as: UTF8.self)
        entries.append(DirectoryEntry(name: text, rawName: component, status: status, destination: destination))
      }
      return (ownStatus, entries)
    }
  }

  /// The entries of the directory `fd` with their status, to compare with an earlier look (a
  /// polling monitor's): `getdents` calls and one `fstatat` per entry, in the order the file system
  /// gives them, without reading links or making path components of the names (which costs more
  /// than the `fstatat`s). Entries of kinds the model does not hold are passed over, and entries
  /// gone meanwhile left out. `fd` must be freshly opened, nothing read from it yet: a FUSE file
  /// system may not list a directory again through the same open description (sshfs gives no
  /// entry after a `rewinddir`), so open it anew for each listing. It stays open (the listing
  /// reads a duplicate).
  /// - Returns: the directory's own status and its entries.
  package static func entryStatuses(
    ofDirectory fd: CInt
  ) throws(Errno) -> (FileStatus, [(name: RawName, status: FileStatus)]) {
    let own = try retrying { dup(fd) }
    let stream = try directoryStream(taking: own)
    defer { closedir(stream) }
    let ownStatus = try status(of: own)
    let (names, starts) = try readNames(stream)
    return try names.withUnsafeBufferPointer { buffer throws(Errno) in
      let base = buffer.baseAddress!
      var entries: [(name: RawName, status: FileStatus)] = []
      entries.reserveCapacity(starts.count)
      for start in starts {
        let name = base + start
        let status: FileStatus
        do throws(Errno) { status = try self.status(in: own, name) } catch {
          if error == .noSuchFileOrDirectory { continue }  // raced with a delete
          throw error
        }
        if status.kind != nil { entries.append((RawName(cString: name), status)) }
      }
      return (ownStatus, entries)
    }
  }

  /// The entries of the directory `relative` below the directory `root` (opened as ``openBeneath(_:_:_:)``
  /// opens) that the model passes over — FIFOs, sockets, character and block devices — each with its kind in
  /// words ("FIFO", "socket", "character device", "block device"), sorted by name. One `getdents` pass: the
  /// kind comes from the directory entry, with an `lstat` only where the file system does not say (`DT_UNKNOWN`).
  package static func specialEntries(beneath root: FilePath, _ relative: FilePath) throws(Errno) -> [(
    name: RawName, kind: String
  )] {
    let fd = try openBeneath(root, relative, [.readOnly, .directory, .noFollow])
    let stream = try directoryStream(taking: fd)
    defer { closedir(stream) }
    var found: [(name: RawName, kind: String)] = []
    while true {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { throw currentErrno }
        break
      }
      var type = Int32(entry.pointee.d_type)
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { RawName(cString: $0) }
      }
      if type == Int32(DT_UNKNOWN) {
        var raw = CStat()
        let result = name.withCString { fstatat(fd, $0, &raw, AT_SYMLINK_NOFOLLOW) }
        guard result == 0 else { continue }  // gone meanwhile
        switch raw.st_mode & S_IFMT {
        case S_IFIFO: type = Int32(DT_FIFO)
        case S_IFSOCK: type = Int32(DT_SOCK)
        case S_IFCHR: type = Int32(DT_CHR)
        case S_IFBLK: type = Int32(DT_BLK)
        default: continue
        }
      }
      switch type {
      case Int32(DT_FIFO): found.append((name, "FIFO"))
      case Int32(DT_SOCK): found.append((name, "socket"))
      case Int32(DT_CHR): found.append((name, "character device"))
      case Int32(DT_BLK): found.append((name, "block device"))
      default: break
      }
    }
    return found.sorted { strcmp($0.name.bytes, $1.name.bytes) < 0 }
  }

  /// Every name `stream` gives but `.` and `..`, NUL-terminated, in one buffer; `starts` indexes them.
  private static func readNames(_ stream: DirectoryStream) throws(Errno) -> (names: [CChar], starts: [Int]) {
    var names: [CChar] = []
    var starts: [Int] = []
    while true {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { throw currentErrno }
        return (names, starts)
      }
      withUnsafePointer(to: &entry.pointee.d_name) { tuple in
        tuple.withMemoryRebound(to: CChar.self, capacity: 256) { name in
          if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return }
          starts.append(names.count)
          names.append(contentsOf: UnsafeBufferPointer(start: name, count: strlen(name) + 1))
        }
      }
    }
  }
}
