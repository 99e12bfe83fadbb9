import DocumentPackage
import SystemPackage

// Directories: made on first use (implied or described), opened through a small cache, and given
// their modes and times last, deepest first.
extension Extractor {
  /// The directory at `components`, creating it (and those above it) if needed.
  func directory(_ components: [String]) throws -> DirectoryHandle {
    if components.isEmpty { return rootHandle }
    let path = components.joined(separator: "/")
    if let fd = directoryFDs[path] { return fd }
    let parent = try directory(Array(components.dropLast())).fd
    let name = components.last!
    if !madeDirectories.contains(path) {
      // The walk has checked that nothing else is at `path`.
      do { try Syscalls.makeDirectory(in: parent, RawName(entryName: name), mode: 0o700) } catch {
        throw PackageError.io(error, "cannot create directory", path: path, context: "in '\(archive)'")
      }
      madeDirectories.insert(path)
      directoryAttributes.append((path, components.count, 0o755, nil))
    }
    if directoryFDs.count >= 64 {
      directoryFDs.removeAll(keepingCapacity: true)
      return try directory(components)
    }
    let fd: CInt
    do { fd = try Syscalls.openDirectory(in: parent, RawName(entryName: name)) } catch {
      throw PackageError.io(error, "cannot open directory", path: path, context: "in '\(archive)'")
    }
    let handle = DirectoryHandle(fd: fd)
    directoryFDs[path] = handle
    return handle
  }

  /// Sets each directory's mode and time, deepest first (a read-only directory is filled before
  /// it becomes read-only), and each link's time.
  func finishDirectories() throws {
    directoryFDs.removeAll()
    for (path, time) in linkTimes {
      let components = path.split(separator: "/").map(String.init)
      let parent = try directory(Array(components.dropLast())).fd
      try? Syscalls.setModificationTime(in: parent, RawName(entryName: components.last!), time)
    }
    // Latest description wins for directories listed twice (implicit, then explicit).
    var attributes: [String: (depth: Int, mode: UInt32, time: FileTime?)] = [:]
    for item in directoryAttributes { attributes[item.path] = (item.depth, item.mode, item.time) }
    directoryFDs.removeAll()
    for (path, item) in attributes.sorted(by: { $0.value.depth > $1.value.depth }) {
      let components = path.split(separator: "/").map(String.init)
      let parent = try directory(Array(components.dropLast())).fd
      do {
        let fd = try Syscalls.openDirectory(in: parent, RawName(entryName: components.last!))
        defer { Syscalls.closeFile(fd) }
        if let time = item.time { try Syscalls.setModificationTime(fd, time) }
        try Syscalls.setMode(fd, CInterop.Mode(item.mode))
      } catch {
        throw PackageError.io(error, "cannot set attributes of", path: path, context: "in '\(archive)'")
      }
    }
    directoryFDs.removeAll()
  }
}
