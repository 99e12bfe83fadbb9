import SystemPackage

/// Reads files of one tree on disk with `openat` relative to their directory, keeping the last
/// directory open: a walk in path order opens each directory once instead of resolving every
/// file's full path, reads a file of the listed size with one `read`, and skips the `fstat` that ``PackageNode/readContents(chunkSize:_:)`` does.
///
/// A fast path only: whenever anything is unexpected (the file cannot be opened, or holds more
/// bytes than when it was listed), the caller falls back to the node's own reading, which checks
/// the file and throws the proper error.
final class DiskFileReader {
  private var directory: FilePath?
  private var location: PackageLocation?
  private var directoryFD: CInt = -1

  deinit {
    if directoryFD >= 0 { Syscalls.closeFile(directoryFD) }
  }

  /// Reads all of `node`'s bytes into `buffer` (replacing what it held) if the node is a file on
  /// disk of at most its listed size.
  /// - Returns: `false` if the fast path does not apply: read the node the usual way.
  func read(_ node: PackageNode, into buffer: inout [UInt8]) -> Bool {
    guard node.kind == .file, node.isBackedByDisk, let origin = node.origin, let name = origin.name,
      let directoryFD = open(directory: origin.directory, in: origin.location)
    else { return false }
    guard let fd = try? Syscalls.openFile(in: directoryFD, name, Syscalls.readOnlyNoFollow) else { return false }
    defer { Syscalls.closeFile(fd) }
    let expected = Int(origin.status.size)
    // One byte more than expected, so that growth since the listing shows.
    if buffer.count != expected + 1 {
      buffer.removeAll(keepingCapacity: true)
      buffer.append(contentsOf: repeatElement(0, count: expected + 1))
    }
    var filled = 0
    let ok: Bool = buffer.withUnsafeMutableBytes { bytes in
      while true {
        guard let count = try? Syscalls.readBytes(fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled...])) else {
          return false
        }
        if count == 0 { return true }
        filled += count
        if filled > expected { return false }
        // A short read that ends exactly at the listed size is the end of a regular file: skip
        // the extra read that would return 0 (a file that grows later is a later version).
        if filled == expected { return true }
      }
    }
    guard ok else { return false }
    buffer.removeLast(buffer.count - filled)
    return true
  }

  /// The descriptor of `directory` (relative to the package root), reusing the last one.
  private func open(directory: FilePath, in location: PackageLocation) -> CInt? {
    if directoryFD >= 0, self.location === location, self.directory == directory { return directoryFD }
    if directoryFD >= 0 { Syscalls.closeFile(directoryFD) }
    directoryFD = -1
    let path = directory.isEmpty ? location.root : location.root.pushing(directory)
    guard let fd = try? Syscalls.openFile(path, Syscalls.directoryForLookup) else { return nil }
    directoryFD = fd
    self.directory = directory
    self.location = location
    return fd
  }
}
