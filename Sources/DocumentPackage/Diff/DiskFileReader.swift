import SystemPackage

/// Reads files of one tree on disk with `openat` relative to their directory, keeping the last
/// directory open: a walk in path order opens each directory once instead of resolving every
/// file's full path, reads a file of the listed size with one `read`, and skips the `fstat` that
/// ``PackageNode/readContents(chunkSize:_:)`` does.
///
/// A fast path only: whenever anything is unexpected (the file cannot be opened, or holds more
/// bytes than when it was listed), the caller falls back to the node's own reading, which checks
/// the file and throws the proper error.
final class DiskFileReader {
  private var directory: FilePath?
  private var location: PackageLocation?
  private var directoryFD: CInt = -1
  private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)

  deinit {
    if directoryFD >= 0 { Syscalls.closeFile(directoryFD) }
    buffer.deallocate()
  }

  /// Reads all of `node`'s bytes if it is a file on disk holding at most its listed size.
  /// - Returns: The bytes, valid until the next call; `nil` if the fast path does not apply
  ///   (read the node the usual way).
  func read(_ node: PackageNode) -> UnsafeRawBufferPointer? {
    // Fields one by one: copying the whole origin costs a retain per reference in it.
    guard node.kind == .file, node.isBackedByDisk, let name = node.origin?.name, let size = node.origin?.status.size,
      let directoryFD = open(directory: node.origin!.directory, in: node.origin!.location)
    else { return nil }
    let expected = Int(size)
    if buffer.count < expected + 1 {
      buffer.deallocate()
      buffer = .allocate(byteCount: max(expected + 1, 2 * buffer.count), alignment: 16)
    }
    guard let fd = try? Syscalls.openFile(in: directoryFD, name, Syscalls.readOnlyNoFollow) else { return nil }
    defer { Syscalls.closeFile(fd) }
    // Room for one byte more than expected, so that growth since the listing shows.
    let room = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(expected + 1)])
    var filled = 0
    while true {
      guard let count = try? Syscalls.readBytes(fd, into: UnsafeMutableRawBufferPointer(rebasing: room[filled...]))
      else {
        return nil
      }
      if count == 0 { break }
      filled += count
      if filled > expected { return nil }
      // A short read that ends exactly at the listed size is the end of a regular file: skip
      // the extra read that would return 0 (a file that grows later is a later version).
      if filled == expected { break }
    }
    return UnsafeRawBufferPointer(rebasing: buffer[..<filled])
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
