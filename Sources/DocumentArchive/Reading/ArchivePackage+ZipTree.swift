import DocumentPackage
import SystemPackage

extension ArchivePackage {
  /// ``zipTree(of:unwrappingSingleDirectory:limits:)`` with no limits to check.
  static func zipTree(of archive: FilePath, unwrappingSingleDirectory: Bool) -> PackageNode? {
    (try? zipTree(of: archive, unwrappingSingleDirectory: unwrappingSingleDirectory, limits: nil)) ?? nil
  }

  /// The tree ``open(_:unwrappingSingleDirectory:limits:)`` returns for the zip at `archive`, read from its
  /// central directory alone into an ``ArchiveEntryIndex``: names, kinds, sizes, permissions and modification
  /// times, with no node made below the root until a directory is listed, and no entry's local header or data
  /// read until a file's contents are asked for. Files then read their entry with
  /// `pread`s of one descriptor shared by the tree, so a comparison may read several at once
  /// (``/DocumentPackage/FileContentSource/allowsConcurrentReads``).
  ///
  /// Returns `nil` whenever the libarchive reader might see the archive differently: not a readable
  /// zip, a local header that differs from its directory entry, anything `ZipDirectoryScan` finds unusual, an entry not made on Unix, or one whose
  /// modification time is not in an extended-timestamp field (libarchive would convert its MS-DOS
  /// time through the local time zone) or that has extra fields other than zip64, extended timestamp
  /// and Unix owner. The caller then reads the archive with libarchive.
  /// - Parameter limits: When given, the tree is refused as `open` refuses it (see there), with no node made.
  /// - Throws: Only the error of exceeding `limits`.
  /// - Complexity: Two passes over the central directory, one `pread` per local header; memory for the index
  ///   (about 50 bytes per entry), and for the nodes of the directories listed.
  static func zipTree(of archive: FilePath, unwrappingSingleDirectory: Bool, limits: UnpackLimits?) throws
    -> PackageNode?
  {
    guard ArchiveFormat(contentsOf: archive) == .zip, let fd = try? Syscalls.openFile(archive, .readOnly) else {
      return nil
    }
    let file = ZipArchiveFile(fd: fd, path: archive.string)  // closes `fd`; shared by the files' sources
    guard let status = try? Syscalls.status(of: fd), status.kind == .file,
      let directory = ZipCentralDirectory(fd: fd, fileSize: status.size)
    else { return nil }
    let expected = directory.declaredEntryCount
    var builder = ArchiveIndexBuilder(expected: expected, nameBytes: Int(directory.size) - 46 * expected)
    var scan = ZipDirectoryScan()
    var unreadTime = false
    let summary = scan.run(fd: fd, fileSize: status.size, archive: archive.string) { header, path in
      // A time libarchive would read otherwise (see `zipModificationTime`): the full reader decides.
      guard !unreadTime, let seconds = zipModificationTime(header) else {
        unreadTime = true
        return
      }
      let time = FileTime(seconds: Int64(seconds))
      let mode = UInt16((header.externalAttributes >> 16) & EntryPolicy.keptPermissions)
      if header.isDirectory {
        builder.addDirectory(path, permissions: mode, time: time)
      } else {
        let values = header.resolved()
        let size = ZipCentralDirectory.dataSize(
          method: header.method, flags: header.flags, size: values.size, compressedSize: values.compressedSize)
        builder.addFile(path, permissions: mode, time: time, size: size, position: header.position)
      }
    }
    scan = ZipDirectoryScan()  // its table of paths is not needed any more
    guard let summary, summary.allUnixModes, !unreadTime, !builder.failed else { return nil }
    // Every local header must say what the directory says, as before libarchive reads a zip: a
    // listing must not show an archive that reading it would refuse (the full reader says why).
    guard (try? directory.checkLocalHeaders(archive: archive.string, keepingAmendments: false)) != nil else {
      return nil
    }
    let index = builder.index(contents: .zip(file, directory))
    return try index.root(
      of: archive, unwrappingSingleDirectory: unwrappingSingleDirectory && !summary.isDocument, limits: limits)
  }
}

extension ArchivePackage {
  /// The time libarchive reports for the entry when the central directory settles it: the extended
  /// timestamp's modification time (which libarchive prefers to the MS-DOS time), below 2³¹. `nil` if
  /// there is none, or another extra field that libarchive might read a time or a kind from.
  static func zipModificationTime(_ header: ZipCentralDirectory.Header) -> UInt32? {
    let end = 46 + header.nameLength + header.extraLength
    var position = 46 + header.nameLength
    var seconds: UInt32?
    while position + 4 <= end {
      let id = header.u16(position)
      let length = Int(header.u16(position + 2))
      let data = position + 4
      guard data + length <= end else { return nil }
      switch id {
      case 0x0001, 0x7875:  // zip64 sizes; Info-ZIP Unix owner
        break
      case 0x5455:  // extended timestamp: flags, then the modification time if flag 1 is set
        guard seconds == nil, length >= 5, header.bytes[data] & 1 != 0 else { return nil }
        seconds = header.u32(data + 1)
      default:
        return nil
      }
      position = data + length
    }
    guard position == end, let seconds, seconds < 0x8000_0000 else { return nil }
    return seconds
  }
}
