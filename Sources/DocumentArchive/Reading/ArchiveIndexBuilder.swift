import DocumentPackage

/// Builds an ``ArchiveEntryIndex`` from an archive's entries as they come: directories made for the entries
/// below them (permissions `0o755`, no time), a directory's permissions and time set by each entry that
/// describes it (the last description wins), and hard links resolved, once every entry is in, to the file they
/// name (its data, size, permissions and time: one file under two names, as unpacking makes it).
///
/// Paths are normalized `/`-separated bytes without a trailing `/`. Directories are found by their paths as
/// `String`s (canonically equivalent paths are one directory, as in a tree of nodes); the directory of the entry
/// before is remembered by its bytes, since entries of one directory usually come together. The caller has
/// judged each entry (``ArchiveWalk``, ``ZipDirectoryScan``): no two describe one path, except directories.
struct ArchiveIndexBuilder {
  typealias Record = ArchiveEntryIndex.Record
  private var records: [Record] = []
  private var names: [UInt8] = []
  /// Each record's directory number (0 for the top level).
  private var parents: [UInt32] = []
  /// Each directory's record, by directory number (the top level has none: `UInt32.max`).
  private var directoryRecords: [UInt32] = [UInt32.max]
  private var directories: [String: UInt32] = ["": 0]
  private var lastParent: (bytes: [UInt8], number: UInt32) = ([], 0)
  /// Hard links, in the order they came: the link's record and its target's path's components.
  private var hardLinks: [(record: Int, target: [String])] = []
  /// Files described again (``describeFileAgain(position:permissions:time:)``), by their position: the last
  /// description.
  private var redescribed: [Int64: (mode: UInt16, seconds: Int64, nanoseconds: UInt32)] = [:]
  /// Set when the table would overflow its fields: the caller reads the archive another way.
  private(set) var failed = false

  /// Reserves room for about `expected` entries with `nameBytes` bytes of names (capacity only: pages are
  /// touched as they fill).
  init(expected: Int = 0, nameBytes: Int = 0) {
    records.reserveCapacity(expected + expected / 8 + 1)
    parents.reserveCapacity(expected + expected / 8 + 1)
    names.reserveCapacity(min(max(0, nameBytes), 1 << 30))
  }

  /// Adds (or describes again) the directory at `path`.
  mutating func addDirectory(_ path: UnsafeRawBufferPointer, permissions: UInt16, time: FileTime?) {
    guard !failed else { return }
    let record = Int(directoryRecords[Int(directory(path))])
    records[record].mode = permissions | Record.directoryBit
    (records[record].seconds, records[record].nanoseconds) = Self.fields(time)
  }

  /// Adds the file at `path`, `size` bytes found again at `position` (see ``ArchiveEntryIndex/Contents``).
  mutating func addFile(
    _ path: UnsafeRawBufferPointer, permissions: UInt16, time: FileTime?, size: UInt64, position: Int64
  ) {
    let (seconds, nanoseconds) = Self.fields(time)
    append(
      path,
      Record(
        nameStart: 0, nameLength: 0, mode: permissions, nanoseconds: nanoseconds, seconds: seconds,
        sizeOrDirectory: size, position: position))
  }

  /// Gives the file added with `position` new permissions and time: a later entry with the same bytes
  /// describes it again, and the last description wins, as for a directory.
  mutating func describeFileAgain(position: Int64, permissions: UInt16, time: FileTime?) {
    let (seconds, nanoseconds) = Self.fields(time)
    redescribed[position] = (permissions, seconds, nanoseconds)
  }

  /// Adds the symbolic link at `path` to `destination`.
  mutating func addSymbolicLink(_ path: UnsafeRawBufferPointer, destination: String, time: FileTime?) {
    let (seconds, nanoseconds) = Self.fields(time)
    let destinationBytes = Array(destination.utf8)
    append(
      path,
      Record(
        nameStart: 0, nameLength: 0, mode: 0o777 | Record.symbolicLinkBit, nanoseconds: nanoseconds,
        seconds: seconds, sizeOrDirectory: UInt64(destinationBytes.count), position: 0),
      trailing: destinationBytes)
  }

  /// Adds the hard link at `path` to the file at `target` (components from the top level), which was added before.
  mutating func addHardLink(_ path: UnsafeRawBufferPointer, target: [String]) {
    hardLinks.append((records.count, target))
    append(
      path,
      Record(
        nameStart: 0, nameLength: 0, mode: 0, nanoseconds: Record.noTime, seconds: 0, sizeOrDirectory: 0,
        position: 0))
  }

  private static func fields(_ time: FileTime?) -> (Int64, UInt32) {
    guard let time else { return (0, Record.noTime) }
    return (time.seconds, UInt32(clamping: time.nanoseconds))
  }

  private mutating func append(_ path: UnsafeRawBufferPointer, _ record: Record, trailing: [UInt8] = []) {
    guard !failed else { return }
    let slash = path.lastIndex(of: UInt8(ascii: "/"))
    let parent = slash.map { directory(UnsafeRawBufferPointer(rebasing: path[..<$0])) } ?? 0
    append(UnsafeRawBufferPointer(rebasing: path[(slash.map { $0 + 1 } ?? 0)...]), parent: parent, record, trailing)
  }

  private mutating func append(
    _ name: UnsafeRawBufferPointer, parent: UInt32, _ record: Record, _ trailing: [UInt8] = []
  ) {
    var record = record
    record.nameStart = UInt32(truncatingIfNeeded: names.count)
    record.nameLength = UInt16(truncatingIfNeeded: name.count)
    if names.count + name.count + trailing.count > Int(UInt32.max) || name.count > Int(UInt16.max)
      || records.count >= Int(UInt32.max) - 1
    {
      failed = true
    }
    names.append(contentsOf: name)
    names.append(contentsOf: trailing)
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
        Record(
          nameStart: 0, nameLength: 0, mode: 0o755 | Record.directoryBit, nanoseconds: Record.noTime, seconds: 0,
          sizeOrDirectory: UInt64(number), position: 0))
      directories[key] = number
      above = number
    }
    lastParent = (Array(path), above)
    return above
  }

  /// The index: each directory's children gathered (a counting sort by directory) and sorted by name, then the
  /// hard links given their files' records.
  mutating func index(contents: ArchiveEntryIndex.Contents) -> ArchiveEntryIndex {
    if !redescribed.isEmpty {
      for record in records.indices where records[record].mode & (Record.directoryBit | Record.symbolicLinkBit) == 0 {
        guard let again = redescribed[records[record].position] else { continue }
        (records[record].mode, records[record].seconds, records[record].nanoseconds) = again
      }
      redescribed = [:]
    }
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
    directories = [:]
    let index = sortedIndex(childStart: childStart, childList: childList, contents: contents)
    // In archive order, so that a link to a link finds its target resolved.
    for link in hardLinks {
      let target = index.record(at: link.target)!  // the caller accepted links to files added before
      var resolved = index.records[target]
      (resolved.nameStart, resolved.nameLength) = (
        index.records[link.record].nameStart, index.records[link.record].nameLength
      )
      index.records[link.record] = resolved
    }
    hardLinks = []
    return index
  }

  /// The index, with each directory's children (`childList`, by `childStart`) sorted by name. The builder's
  /// records and names move into it.
  private mutating func sortedIndex(childStart: [UInt32], childList: [UInt32], contents: ArchiveEntryIndex.Contents)
    -> ArchiveEntryIndex
  {
    var childList = childList
    let (records, names) = (self.records, self.names)
    (self.records, self.names) = ([], [])
    names.withUnsafeBytes { names in
      func name(_ record: UInt32) -> UnsafeRawBufferPointer {
        let entry = records[Int(record)]
        return UnsafeRawBufferPointer(
          rebasing: names[Int(entry.nameStart)..<(Int(entry.nameStart) + Int(entry.nameLength))])
      }
      for number in 0..<directoryRecords.count {
        childList[Int(childStart[number])..<Int(childStart[number + 1])].sort {
          ZipPathTable.order(name($0), name($1)) < 0
        }
      }
    }
    return ArchiveEntryIndex(
      contents: contents, records: records, names: names, childStart: childStart, childList: childList)
  }
}
