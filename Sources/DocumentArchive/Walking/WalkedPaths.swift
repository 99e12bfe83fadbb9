import DocumentPackage

/// The paths an ``ArchiveWalk`` has accepted, kept compact: a walk of a million entries holds a million of them.
///
/// Each path is an ``ArchiveEntryIndex/Record`` of 40 bytes (its parent's record, its last name, whose bytes lie in
/// one growing arena, and what reading the archive in place shows of it: kind, permissions, time, size, where its
/// data is); an open-addressing table of 8-byte slots (32 bits of the hash, then the record's number) finds the
/// record of a name in a directory. The same records become the index of the archive read in place
/// (``index(contents:)``): what the walk judged is what the tree lists, held once. That is about 65 bytes a path,
/// where a `[String: …]` of whole paths took over 200, and recording a path allocates nothing of its own. The table
/// doubles when it is three-quarters full; a name's place is given by the high bits of its slot's 32 hash bits, so
/// that doubling moves the slots without hashing again.
///
/// Names are compared as `String`s compare them (canonical equivalence: `"é"` precomposed equals `"e\u{301}"`, and
/// `"\u{212A}"`, KELVIN SIGN, equals `"K"`), as a tree of nodes keys its children. Two ASCII names are equal exactly
/// when their bytes are, so names are hashed and compared as bytes until one that is not ASCII is met; from then on
/// every name is hashed and compared as a `String` (the slower way). Hashing uses the standard library's seeded
/// `Hasher`: names chosen to collide cannot be precomputed by an archive's author.
/// - Complexity: Finding or adding a name O(name length), expected.
struct WalkedPaths {
  /// What a path is.
  enum Kind {
    /// A directory, described by an entry or implied by the entries below it.
    case directory
    case symbolicLink
    /// A file entry, or a hard link to one.
    case file
  }

  private typealias Record = ArchiveEntryIndex.Record

  /// A hard link's mode, until ``index(contents:)`` gives it its file's record; its `position` is that record's.
  private static let hardLinkBit: UInt16 = 0x2000
  /// Set in a file's mode when its header declares no size (its bytes are then not compared with a duplicate's).
  private static let unknownSizeBit: UInt16 = 0x1000

  /// The parent of top-level paths.
  static let root = Record.topLevel

  private var records: [Record] = []
  private var names: [UInt8] = []
  /// 0 for an empty slot, else 32 bits of the hash (the high ones), then the record's number + 1.
  private var slots = [UInt64](repeating: 0, count: 1 << 10)
  /// log₂ of the number of slots.
  private var slotBits = 10
  /// Whether a name that is not ASCII was met: names are then hashed and compared as `String`s.
  private var byString = false

  /// The number of paths recorded.
  var count: Int { records.count }

  /// The record of the name `name` in the directory whose record is `parent` (``root`` for the top level).
  mutating func find(_ name: String, in parent: UInt32) -> UInt32? {
    var name = name
    return name.withUTF8 { find(UnsafeRawBufferPointer($0), in: parent) }
  }

  /// The record of `name` (UTF-8) in `parent`.
  mutating func find(_ name: UnsafeRawBufferPointer, in parent: UInt32) -> UInt32? {
    if !byString, !Self.isASCII(name) { useStrings() }
    return lookup(name, in: parent, hash: hash(name, in: parent)).record
  }

  /// The kind of record `record`.
  func kind(_ record: UInt32) -> Kind {
    let found = records[Int(record)]
    return found.isDirectory ? .directory : found.isSymbolicLink ? .symbolicLink : .file
  }

  /// The entry number and declared size of file record `record`, when its bytes can be compared (not a hard link).
  func file(_ record: UInt32) -> (entry: Int, size: Int64?)? {
    let found = records[Int(record)]
    guard !found.isDirectory, !found.isSymbolicLink, found.mode & Self.hardLinkBit == 0 else { return nil }
    return (Int(found.position), found.mode & Self.unknownSizeBit != 0 ? nil : Int64(found.sizeOrDirectory))
  }

  /// Makes record `record` the file of entry `entry`, of declared `size` (`nil`, or negative, for none).
  mutating func setFile(_ record: UInt32, entry: Int, size: Int64?, permissions: UInt16, time: FileTime?) {
    let known = size.map { $0 >= 0 } ?? false
    records[Int(record)].mode = permissions | (known ? 0 : Self.unknownSizeBit)
    records[Int(record)].sizeOrDirectory = known ? UInt64(size!) : 0
    records[Int(record)].position = Int64(entry)
    describe(record, permissions: nil, time: time)
  }

  /// Makes record `record` a hard link to the file whose record is `file`.
  mutating func setHardLink(_ record: UInt32, to file: UInt32) {
    records[Int(record)].mode = Self.hardLinkBit
    records[Int(record)].position = Int64(file)
  }

  /// Makes record `record` a directory described by an entry (the last description wins).
  mutating func setDirectory(_ record: UInt32, permissions: UInt16, time: FileTime?) {
    describe(record, permissions: permissions | Record.directoryBit, time: time)
  }

  /// Gives file record `record` the permissions and time of a later entry with the same bytes (the last wins).
  mutating func describeFileAgain(_ record: UInt32, permissions: UInt16, time: FileTime?) {
    let kept = records[Int(record)].mode & Self.unknownSizeBit
    describe(record, permissions: permissions | kept, time: time)
  }

  private mutating func describe(_ record: UInt32, permissions mode: UInt16?, time: FileTime?) {
    if let mode { records[Int(record)].mode = mode }
    records[Int(record)].seconds = time?.seconds ?? 0
    records[Int(record)].nanoseconds = time.map { UInt32(clamping: $0.nanoseconds) } ?? Record.noTime
  }

  /// The record of `name` in `parent`; if it is not there, added as a directory (`0755`, no time) that a later
  /// `set…` may make something else.
  /// - Returns: `nil` when the table is full (4 GiB of names, or 2³¹ paths): the walk refuses the entry.
  mutating func add(_ name: String, in parent: UInt32) -> UInt32? {
    add(name, in: parent, trailing: [])
  }

  /// Adds a symbolic link to `destination` called `name` in `parent` (which holds no `name`: the walk checked).
  /// - Returns: `nil` when the table is full.
  mutating func addSymbolicLink(_ name: String, in parent: UInt32, to destination: String, time: FileTime?)
    -> UInt32?
  {
    let bytes = Array(destination.utf8)
    guard let record = add(name, in: parent, trailing: bytes) else { return nil }
    records[Int(record)].mode = 0o777 | Record.symbolicLinkBit
    records[Int(record)].sizeOrDirectory = UInt64(bytes.count)
    describe(record, permissions: nil, time: time)
    return record
  }

  /// The record of `name` in `parent`, added if it is not there with `trailing` bytes after its name (a link's
  /// destination, where ``ArchiveEntryIndex`` reads it).
  private mutating func add(_ name: String, in parent: UInt32, trailing: [UInt8]) -> UInt32? {
    var name = name
    return name.withUTF8 { name in
      let name = UnsafeRawBufferPointer(name)
      if !byString, !Self.isASCII(name) { useStrings() }
      let hash = hash(name, in: parent)
      let (slot, found) = lookup(name, in: parent, hash: hash)
      if let found { return found }
      guard names.count + name.count + trailing.count <= Int(UInt32.max), records.count < 1 << 31,
        name.count <= Int(UInt16.max)
      else { return nil }
      let record = UInt32(records.count)
      records.append(
        Record(
          nameStart: UInt32(names.count), nameLength: UInt16(name.count), mode: 0o755 | Record.directoryBit,
          nanoseconds: Record.noTime, parent: parent, seconds: 0, sizeOrDirectory: 0, position: 0))
      names.append(contentsOf: name)
      names.append(contentsOf: trailing)
      slots[slot] = Self.tag(hash) | UInt64(record + 1)
      if records.count >= slots.count - slots.count / 4 { grow() }
      return record
    }
  }

  /// The paths as the index of the archive read in place, the records and names moved into it: each hard link
  /// given its file's record (in the order they came, so that a link to a link finds its file's), each directory
  /// a number. The table is empty afterwards.
  mutating func index(contents: ArchiveEntryIndex.Contents) -> ArchiveEntryIndex {
    slots = []
    var records = self.records
    let names = self.names
    (self.records, self.names) = ([], [])
    var directories = 0
    for number in records.indices {
      var record = records[number]
      if record.mode & Self.hardLinkBit != 0 {
        let file = records[Int(record.position)]
        (record.mode, record.nanoseconds, record.seconds) = (file.mode, file.nanoseconds, file.seconds)
        (record.sizeOrDirectory, record.position) = (file.sizeOrDirectory, file.position)
      } else if record.isDirectory {
        directories += 1
        record.sizeOrDirectory = UInt64(directories)
      }
      record.mode &= ~Self.unknownSizeBit
      records[number] = record
    }
    return ArchiveEntryIndex(contents: contents, records: records, names: names, directoryCount: directories + 1)
  }

  /// The names from the top level down to record `record`, spelled as they were recorded.
  func components(of record: UInt32) -> [String] {
    var components: [String] = []
    var current = record
    while current != Self.root {
      components.append(name(of: current))
      current = records[Int(current)].parent
    }
    return components.reversed()
  }

  /// The last name of record `record`.
  func name(of record: UInt32) -> String {
    names.withUnsafeBytes { String(decoding: bytes(of: records[Int(record)], in: $0), as: UTF8.self) }
  }

  private func bytes(of record: Record, in names: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: names[Int(record.nameStart)..<(Int(record.nameStart) + Int(record.nameLength))])
  }

  /// The slot holding `name` in `parent`, or the empty slot where it would go.
  private func lookup(_ name: UnsafeRawBufferPointer, in parent: UInt32, hash: Int) -> (slot: Int, record: UInt32?) {
    let mask = slots.count - 1
    let tag = Self.tag(hash)
    var slot = Self.place(of: tag, bits: slotBits)
    return names.withUnsafeBytes { names in
      while true {
        let value = slots[slot]
        if value == 0 { return (slot, nil) }
        if value & 0xFFFF_FFFF_0000_0000 == tag {
          let record = UInt32(truncatingIfNeeded: value) - 1
          let candidate = records[Int(record)]
          if candidate.parent == parent, equal(bytes(of: candidate, in: names), name) { return (slot, record) }
        }
        slot = (slot + 1) & mask
      }
    }
  }

  private func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    if !byString { return a.elementsEqual(b) }
    return String(decoding: a, as: UTF8.self) == String(decoding: b, as: UTF8.self)
  }

  private func hash(_ name: UnsafeRawBufferPointer, in parent: UInt32) -> Int {
    var hasher = Hasher()
    hasher.combine(parent)
    if byString { hasher.combine(String(decoding: name, as: UTF8.self)) } else { hasher.combine(bytes: name) }
    return hasher.finalize()
  }

  private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash)) & 0xFFFF_FFFF_0000_0000 }

  /// The first slot to probe for a tag, in a table of 2^`bits` slots: the tag's high bits.
  private static func place(of tag: UInt64, bits: Int) -> Int { Int(truncatingIfNeeded: tag >> (64 - bits)) }

  private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool { !bytes.contains(where: { $0 >= 0x80 }) }

  /// Names are hashed and compared as `String`s from now on: every record is hashed again and placed anew.
  private mutating func useStrings() {
    byString = true
    var table = [UInt64](repeating: 0, count: slots.count)
    names.withUnsafeBytes { names in
      for (number, record) in records.enumerated() {
        insert(Self.tag(hash(bytes(of: record, in: names), in: record.parent)) | UInt64(number + 1), into: &table)
      }
    }
    slots = table
  }

  /// Doubles the table, each slot placed by its tag (up to 2³² slots, as many as the tag has bits).
  private mutating func grow() {
    guard slotBits < 32 else { return }
    slotBits += 1
    var table = [UInt64](repeating: 0, count: slots.count * 2)
    for value in slots where value != 0 { insert(value, into: &table) }
    slots = table
  }

  /// Puts slot value `value` in the first free slot from its place in `table` (of 2^``slotBits`` slots).
  private func insert(_ value: UInt64, into table: inout [UInt64]) {
    let mask = table.count - 1
    var slot = Self.place(of: value & 0xFFFF_FFFF_0000_0000, bits: slotBits)
    while table[slot] != 0 { slot = (slot + 1) & mask }
    table[slot] = value
  }
}
