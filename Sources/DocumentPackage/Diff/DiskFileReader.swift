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
  /// The directory whose descriptor is open, compared by identity (it is kept alive by its tree).
  private unowned(unsafe) var lastParent: PackageNode?
  private var directoryFD: CInt = -1
  private var buffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: 1 << 16, alignment: Syscalls.readBufferAlignment)

  deinit {
    if directoryFD >= 0 { Syscalls.closeFile(directoryFD) }
    buffer.deallocate()
  }

  /// Makes room for files of up to `size` bytes at once, so that reading a series of growing files
  /// does not allocate (and fault in) a larger buffer for each.
  func reserve(_ size: Int64) {
    let needed = Int(size) + 1
    guard buffer.count < needed else { return }
    buffer.deallocate()
    buffer = .allocate(byteCount: needed, alignment: Syscalls.readBufferAlignment)
  }

  /// Reads all of `node`'s bytes if it is a file on disk holding at most its listed size.
  /// - Returns: The bytes, valid until the next call; `nil` if the fast path does not apply
  ///   (read the node the usual way).
  func read(_ node: PackageNode) -> UnsafeRawBufferPointer? {
    guard node.kind == .file, node.isBackedByDisk, let directoryFD = directory(of: node) else { return nil }
    let expected = Int(node.size)
    if buffer.count < expected + 1 {
      buffer.deallocate()
      buffer = .allocate(byteCount: max(expected + 1, 2 * buffer.count), alignment: Syscalls.readBufferAlignment)
    }
    // The node's name is its name on disk: its directory has no renames or moves in memory (see
    // `directory(of:)`). A name that is not valid UTF-8 was repaired and is not found: fall back.
    let opened = node.name.withCString { name in
      Syscalls.retryingRaw { Syscalls.openAt(directoryFD, name, Syscalls.readOnlyNoFollow) }
    }
    guard opened >= 0 else { return nil }
    let fd = opened
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

  /// The open directory holding `node` on disk, reusing the last one: siblings come one after
  /// another in a walk. `nil` when the parent directory is not the one on disk as listed: made in
  /// memory, or with children added, removed or renamed in memory (names may then not be the
  /// names on disk).
  private func directory(of node: PackageNode) -> CInt? {
    guard let parent = node.parent else { return nil }
    if parent === lastParent { return directoryFD >= 0 ? directoryFD : nil }
    lastParent = parent
    if directoryFD >= 0 { Syscalls.closeFile(directoryFD) }
    directoryFD = -1
    guard parent.kind == .directory, !parent.edits.contains(.membership), let path = parent.diskLocation,
      let fd = try? Syscalls.openFile(path, Syscalls.directoryForLookup)
    else { return nil }
    directoryFD = fd
    return fd
  }
}
