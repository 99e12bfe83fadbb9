import DocumentPackage
import SystemPackage

extension ArchivePackage {
  /// ``zipTree(of:unwrappingSingleDirectory:limits:)`` with no limits to check.
  static func zipTree(of archive: FilePath, unwrappingSingleDirectory: Bool) -> PackageNode? {
    (try? zipTree(of: archive, unwrappingSingleDirectory: unwrappingSingleDirectory, limits: nil)) ?? nil
  }

  /// The tree ``open(_:unwrappingSingleDirectory:limits:)`` returns for the zip at `archive`, read from its
  /// central directory alone into a ``ZipEntryIndex``: names, kinds, sizes, permissions and modification
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
    var builder = ZipIndexBuilder(expected: directory.declaredEntryCount, nameBytes: Int(directory.size))
    var scan = ZipDirectoryScan()
    let summary = scan.run(fd: fd, fileSize: status.size, archive: archive.string) { header, path in
      builder.add(header, path)
    }
    scan = ZipDirectoryScan()  // its table of paths is not needed any more
    guard let summary, summary.allUnixModes, !builder.failed else { return nil }
    // Every local header must say what the directory says, as before libarchive reads a zip: a
    // listing must not show an archive that reading it would refuse (the full reader says why).
    guard (try? directory.checkLocalHeaders(archive: archive.string, keepingAmendments: false)) != nil else {
      return nil
    }
    let index = builder.index(file: file, directory: directory)
    // One top-level directory: that is the package (as `open` decides).
    let top = index.children(of: 0)
    if unwrappingSingleDirectory, top.count == 1, let only = top.first.map(Int.init), index.records[only].isDirectory,
      !summary.isDocument
    {
      if let limits {
        try index.check(below: Int(index.records[only].sizeOrDirectory), against: limits, archive: archive)
      }
      return index.node(of: only)
    }
    if let limits { try index.check(below: 0, against: limits, archive: archive) }
    return PackageNode(
      directoryListedBy: ZipIndexedListing(index: index, directory: 0),
      name: ArchiveUnpacker.documentFolderName(for: archive),
      permissions: [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute], modificationTime: nil)
  }
}

/// Builds the ``ZipEntryIndex`` of a zip from its central directory headers, as `ArchiveTreeBuilder` builds a
/// tree from libarchive's entries: directories made for the entries below them (permissions `0o755`, no time),
/// permissions and times set from each entry that describes a path (the last description of a directory wins).
/// Directories are found by their paths as `String`s (canonically equivalent paths are one directory, as in a
/// tree of nodes); the directory of the entry before is remembered by its bytes, since entries of one directory
/// usually come together.
private struct ZipIndexBuilder {
  private var records: [ZipEntryIndex.Record] = []
  private var names: [UInt8] = []
  /// Each record's directory number (0 for the top level).
  private var parents: [UInt32] = []
  /// Each directory's record, by directory number (the top level has none: `UInt32.max`).
  private var directoryRecords: [UInt32] = [UInt32.max]
  private var directories: [String: UInt32] = ["": 0]
  private var lastParent: (bytes: [UInt8], number: UInt32) = ([], 0)
  /// Set when an entry cannot be indexed here exactly as libarchive would read it.
  private(set) var failed = false

  init(expected: Int, nameBytes: Int) {
    // Capacity only: pages are touched as they fill.
    records.reserveCapacity(expected + expected / 8 + 1)
    parents.reserveCapacity(expected + expected / 8 + 1)
    names.reserveCapacity(min(max(0, nameBytes - 46 * expected), 1 << 30))
  }

  /// Adds the entry `header`, whose normalized path is `path`.
  mutating func add(_ header: ZipCentralDirectory.Header, _ path: UnsafeRawBufferPointer) {
    guard !failed else { return }
    guard let time = ArchivePackage.zipModificationTime(header), records.count < Int(UInt32.max) - 1 else {
      failed = true
      return
    }
    let mode = UInt16((header.externalAttributes >> 16) & EntryPolicy.keptPermissions)
    if header.isDirectory {
      let number = directory(path)
      records[Int(directoryRecords[Int(number)])].mode = mode | ZipEntryIndex.Record.directoryBit
      records[Int(directoryRecords[Int(number)])].time = time
      return
    }
    let slash = path.lastIndex(of: UInt8(ascii: "/"))
    let parent = slash.map { directory(UnsafeRawBufferPointer(rebasing: path[..<$0])) } ?? 0
    let name = UnsafeRawBufferPointer(rebasing: path[(slash.map { $0 + 1 } ?? 0)...])
    append(
      name, parent: parent,
      ZipEntryIndex.Record(
        nameStart: 0, nameLength: 0, mode: mode, time: time, sizeOrDirectory: Self.dataSize(header),
        headerPosition: header.position))
  }

  private static func dataSize(_ header: ZipCentralDirectory.Header) -> UInt64 {
    let values = header.resolved()
    return ZipCentralDirectory.dataSize(
      method: header.method, flags: header.flags, size: values.size, compressedSize: values.compressedSize)
  }

  private mutating func append(_ name: UnsafeRawBufferPointer, parent: UInt32, _ record: ZipEntryIndex.Record) {
    var record = record
    record.nameStart = UInt32(truncatingIfNeeded: names.count)
    record.nameLength = UInt16(truncatingIfNeeded: name.count)
    if names.count + name.count > Int(UInt32.max) { failed = true }
    names.append(contentsOf: name)
    records.append(record)
    parents.append(parent)
  }

  /// The number of the directory at `path` (normalized, not empty), made (with those above it) if needed.
  private mutating func directory(_ path: UnsafeRawBufferPointer) -> UInt32 {
    if lastParent.bytes.withUnsafeBytes({ Syscalls.bytesEqual(path, $0) }) { return lastParent.number }
    // The levels not made yet, deepest first; then made from the top down.
    var missing: [(end: Int, key: String)] = []
    var end = path.count
    var above: UInt32 = 0
    while end > 0 {
      let key = String(decoding: UnsafeRawBufferPointer(rebasing: path[..<end]), as: UTF8.self)
      if let number = directories[key] {
        above = number
        break
      }
      missing.append((end, key))
      end = path[..<end].lastIndex(of: UInt8(ascii: "/")) ?? 0
    }
    for (end, key) in missing.reversed() {
      let start = path[..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
      let number = UInt32(directoryRecords.count)
      directoryRecords.append(UInt32(records.count))
      append(
        UnsafeRawBufferPointer(rebasing: path[start..<end]), parent: above,
        ZipEntryIndex.Record(
          nameStart: 0, nameLength: 0, mode: 0o755 | ZipEntryIndex.Record.directoryBit,
          time: ZipEntryIndex.Record.noTime,
          sizeOrDirectory: UInt64(number), headerPosition: 0))
      directories[key] = number
      above = number
    }
    lastParent = (Array(path), above)
    return above
  }

  /// The index: each directory's children gathered (a counting sort by directory) and sorted by name.
  mutating func index(file: ZipArchiveFile, directory: ZipCentralDirectory) -> ZipEntryIndex {
    var childStart = [UInt32](repeating: 0, count: directoryRecords.count + 1)
    for parent in parents { childStart[Int(parent) + 1] += 1 }
    for number in 0..<directoryRecords.count { childStart[number + 1] += childStart[number] }
    var next = childStart
    var childList = [UInt32](repeating: 0, count: records.count)
    for (record, parent) in parents.enumerated() {
      childList[Int(next[Int(parent)])] = UInt32(record)
      next[Int(parent)] += 1
    }
    parents = []
    let (records, names) = (self.records, self.names)
    names.withUnsafeBytes { names in
      func name(_ record: UInt32) -> UnsafeRawBufferPointer {
        let entry = records[Int(record)]
        return UnsafeRawBufferPointer(
          rebasing: names[Int(entry.nameStart)..<(Int(entry.nameStart) + Int(entry.nameLength))])
      }
      for number in 0..<directoryRecords.count {
        childList[Int(childStart[number])..<Int(childStart[number + 1])].sort {
          Self.precedes(name($0), name($1))
        }
      }
    }
    return ZipEntryIndex(
      file: file, directory: directory, records: records, names: names, childStart: childStart, childList: childList)
  }

  /// Byte-wise order of UTF-8 names: the order of ``/DocumentPackage/PackageNode/sortedChildren()`` (path
  /// order, for names without a `/`).
  private static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    ZipPathTable.order(a, b) < 0
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
