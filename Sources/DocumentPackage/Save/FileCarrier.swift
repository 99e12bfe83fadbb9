import SystemPackage

/// Carries an unchanged file from the old tree into the new one as cheaply as the file system
/// allows: a hard link (no data moves, inode, mode and mtime kept); where links are refused
/// (`EXDEV`, `EPERM`, `EMLINK`, `EOPNOTSUPP`), a copy — a `FICLONE` reflink, else
/// `copy_file_range`, else `read`/`write` — with the mode and mtime set as they were.
enum FileCarrier {
  /// Carries the regular file or symbolic link `name` of `source` into `destination` as `newName`.
  /// - Parameters:
  ///   - attributes: New permissions and modification time for the carried file; when given, the
  ///     file is copied rather than linked (changing a linked inode would change the old tree).
  ///   - linking: False to copy it whatever the file system allows: a file of another package (a save
  ///     as, a copy), which must not share an inode with this one (an in-place write to either would
  ///     change both).
  ///   - relinked: Where a file carried by a hard link is noted (its change time moved).
  ///   - announce: Told the entry's status just before a hard link is made (``RelinkedFile/link(_:in:as:in:noting:announce:)``).
  /// - Returns: The carried entry's status when a hard link carried it and it was read just after (so a
  ///   caller needs no `stat` of its own); nil when it was copied.
  @discardableResult
  static func carry(
    _ name: RawName, from source: CInt, to destination: CInt, as newName: RawName,
    attributes: (FilePermissions, FileTime?)? = nil, linking: Bool = true, durability: inout DurabilityPlan,
    relinked: inout [RelinkedFile], announce: ((FileStatus) -> Void)? = nil
  ) throws(Errno) -> FileStatus? {
    if attributes == nil && linking {
      do {
        return try RelinkedFile.link(
          name, in: source, as: newName, in: destination, noting: &relinked, announce: announce)
      } catch  where error.refusesLink {}
    }
    let status = try Syscalls.status(in: source, name)
    if status.kind == .symlink {
      let target = try Syscalls.readLinkBytes(in: source, name)
      try Syscalls.makeSymbolicLink(in: destination, newName, destinationBytes: target)
      try Syscalls.setModificationTime(in: destination, newName, attributes?.1 ?? status.modificationTime)
      return nil
    }
    let input = try Syscalls.openForReading(in: source, name)
    defer { Syscalls.closeFile(input) }
    let output = try Syscalls.createFile(in: destination, newName)
    defer { Syscalls.closeFile(output) }
    try copyContents(from: input, to: output)
    try Syscalls.setPermissions(output, attributes?.0 ?? status.permissions)
    try Syscalls.setModificationTime(
      output, attributes.map { $0.1 ?? status.modificationTime } ?? status.modificationTime)
    try durability.finished(output)
    return nil
  }

  /// Carries the FIFO, socket or device node `name` of `source` into `destination` under the same name: a
  /// hard link, or where links are refused, a new node of the same kind and permissions. The model does
  /// not hold such entries; a save carries them so that it never deletes what it does not represent.
  static func carrySpecial(_ name: RawName, from source: CInt, to destination: CInt) throws(Errno) {
    do {
      try Syscalls.link(from: source, name, to: destination, name)
    } catch  where error.refusesLink {
      try Syscalls.makeNode(like: name, in: source, to: destination, name)
    }
  }

  /// Copies all of `input` (from its current offset) to `output`: reflink, else in-kernel copy,
  /// else a 1 MiB buffer, of the ranges that hold data only: holes stay holes. Memory stays bounded
  /// whatever the size.
  static func copyContents(from input: CInt, to output: CInt) throws(Errno) {
    do {
      try Syscalls.cloneFile(from: input, to: output)
      return
    } catch {
      // FICLONE is refused by file systems without reflinks (ext4: EOPNOTSUPP; across file systems: EXDEV).
    }
    let start = Syscalls.currentOffset(input)
    let size = try Syscalls.status(of: input).size
    var inKernel = true
    var buffer: UnsafeMutableRawBufferPointer?
    defer { buffer?.deallocate() }
    for range in try Syscalls.dataRanges(input, from: start, size: size) {
      _ = try Syscalls.seek(input, to: range.lowerBound)
      _ = try Syscalls.seek(output, to: range.lowerBound - start)
      var left = range.upperBound - range.lowerBound
      while left > 0 {
        if inKernel {
          do {
            let count = try Syscalls.copyRange(from: input, to: output, count: Int(min(left, 1 << 30)))
            if count == 0 { break }
            left -= Int64(count)
            continue
          } catch {
            switch error {
            case .noFunction, .improperLink, .invalidArgument, .notSupported, .notSupportedOnSocket:
              inKernel = false
            default: throw error
            }
          }
        }
        let chunk =
          buffer ?? .allocate(byteCount: 1 << 20, alignment: Syscalls.readBufferAlignment)
        buffer = chunk
        let count = try Syscalls.readBytes(
          input, into: UnsafeMutableRawBufferPointer(rebasing: chunk[..<Int(min(left, 1 << 20))]))
        if count == 0 { break }
        try Syscalls.writeAll(output, UnsafeRawBufferPointer(rebasing: chunk[..<count]))
        left -= Int64(count)
      }
    }
    try Syscalls.setSize(output, size - start)
  }
}
