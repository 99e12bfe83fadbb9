import DocumentPackage

/// Builds an ``ArchiveEntryIndex`` from a zip's central directory as its entries come: directories made for the
/// entries below them (permissions `0o755`, no time), a directory's permissions and time set by each entry that
/// describes it (the last description wins). (Any other archive is judged by an ``ArchiveWalk``, whose table of
/// paths becomes the index: ``WalkedPaths/index(contents:)``.)
///
/// Paths are normalized `/`-separated bytes without a trailing `/`. Directories are found by their paths as
/// `String`s (canonically equivalent paths are one directory, as in a tree of nodes); the directory of the entry
/// before is remembered by its bytes, since entries of one directory usually come together. The caller has
/// judged each entry (``ZipDirectoryScan``): no two describe one path, except directories.
struct ArchiveIndexBuilder {
  typealias Record = ArchiveEntryIndex.Record
  private var records: [Record] = []
  private var names: [UInt8] = []
  /// Each directory's record, by directory number (the top level has none: `UInt32.max`).
  private var directoryRecords: [UInt32] = [UInt32.max]
  private var directories: [String: UInt32] = ["": 0]
  private var lastParent: (bytes: [UInt8], number: UInt32) = ([], 0)
  /// Set when the table would overflow its fields: the caller reads the archive another way.
  private(set) var failed = false

  /// Reserves room for about `expected` entries with `nameBytes` bytes of names (capacity only: pages are
  /// touched as they fill).
  init(expected: Int = 0, nameBytes: Int = 0) {
    records.reserveCapacity(expected + expected / 8 + 1)
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
        nameStart: 0, nameLength: 0, mode: permissions, nanoseconds: nanoseconds, parent: 0, seconds: seconds,
        sizeOrDirectory: size, position: position))
  }

  private static func fields(_ time: FileTime?) -> (Int64, UInt32) {
    guard let time else { return (0, Record.noTime) }
    return (time.seconds, UInt32(clamping: time.nanoseconds))
  }

  private mutating func append(_ path: UnsafeRawBufferPointer, _ record: Record) {
    guard !failed else { return }
    let slash = path.lastIndex(of: UInt8(ascii: "/"))
    let parent = slash.map { directory(UnsafeRawBufferPointer(rebasing: path[..<$0])) } ?? 0
    append(UnsafeRawBufferPointer(rebasing: path[(slash.map { $0 + 1 } ?? 0)...]), parent: parent, record)
  }

  /// Appends `record` called `name` to directory number `parent`.
  private mutating func append(_ name: UnsafeRawBufferPointer, parent: UInt32, _ record: Record) {
    var record = record
    record.nameStart = UInt32(truncatingIfNeeded: names.count)
    record.nameLength = UInt16(truncatingIfNeeded: name.count)
    record.parent = directoryRecords[Int(parent)]
    if names.count + name.count > Int(UInt32.max) || name.count > Int(UInt16.max)
      || records.count >= Int(UInt32.max) - 1
    {
      failed = true
    }
    names.append(contentsOf: name)
    records.append(record)
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
          nameStart: 0, nameLength: 0, mode: 0o755 | Record.directoryBit, nanoseconds: Record.noTime, parent: 0,
          seconds: 0, sizeOrDirectory: UInt64(number), position: 0))
      directories[key] = number
      above = number
    }
    lastParent = (Array(path), above)
    return above
  }

  /// The index; the builder's records and names move into it.
  mutating func index(contents: ArchiveEntryIndex.Contents) -> ArchiveEntryIndex {
    let (records, names) = (self.records, self.names)
    (self.records, self.names) = ([], [])
    directories = [:]
    return ArchiveEntryIndex(
      contents: contents, records: records, names: names, directoryCount: directoryRecords.count)
  }
}
