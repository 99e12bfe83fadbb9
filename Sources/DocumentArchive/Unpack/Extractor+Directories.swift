import DocumentPackage
import SystemPackage

// Directories: made on first use (implied or described), opened through a small cache, and given
// their modes and times last, deepest first.
extension Extractor {
  /// The directory at `components`, creating it (and those above it) if needed: down from the
  /// deepest one already open, a level at a time, however deep the archive's paths go.
  func directory(_ components: [String]) throws -> DirectoryHandle {
    if components.isEmpty { return rootHandle }
    var paths: [String] = []  // of each level, the first component's first
    paths.reserveCapacity(components.count)
    for component in components { paths.append(paths.isEmpty ? component : paths.last! + "/" + component) }
    if let handle = directoryFDs[paths.last!] { return handle }
    var level = components.count - 1  // levels above this one are open or the root
    while level > 0, directoryFDs[paths[level - 1]] == nil { level -= 1 }
    var parent = level == 0 ? rootHandle : directoryFDs[paths[level - 1]]!
    for index in level..<components.count {
      let path = paths[index]
      let name = RawName(entryName: components[index])
      if !madeDirectories.contains(path) {
        // The walk has checked that nothing else is at `path`.
        do { try Syscalls.makeDirectory(in: parent.fd, name, mode: 0o700) } catch {
          throw PackageError.io(error, "cannot create directory", path: path, context: "in '\(archive)'")
        }
        madeDirectories.insert(path)
        directoryAttributes.append((path, index + 1, 0o755 & Self.permissionMask, nil))
      }
      let fd: CInt
      do { fd = try Syscalls.openDirectory(in: parent.fd, name) } catch {
        throw PackageError.io(error, "cannot open directory", path: path, context: "in '\(archive)'")
      }
      // At most as many open as a walk's window (`DescriptorWindow`): `parent` keeps its own descriptor open
      // while the cache is emptied.
      if directoryFDs.count >= DescriptorWindow.descriptors { directoryFDs.removeAll(keepingCapacity: true) }
      parent = DirectoryHandle(fd: fd)
      directoryFDs[path] = parent
    }
    return parent
  }

  /// Sets the mode and time of each file described again, each directory's mode and time, deepest first (a
  /// read-only directory is filled before it becomes read-only), and each link's time.
  func finishDirectories() throws {
    directoryFDs.removeAll()
    for (path, mode, time) in fileAttributes {
      let components = path.split(separator: "/").map(String.init)
      let parent = try directory(Array(components.dropLast())).fd
      do {
        let name = RawName(entryName: components.last!)
        try Syscalls.setMode(in: parent, name, CInterop.Mode(mode))
        if let time { try Syscalls.setModificationTime(in: parent, name, time) }
      } catch {
        throw PackageError.io(error, "cannot set attributes of", path: path, context: "in '\(archive)'")
      }
    }
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
