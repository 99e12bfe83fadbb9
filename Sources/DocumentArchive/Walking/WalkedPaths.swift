/// The paths an ``ArchiveWalk`` has accepted, kept compact: a walk of a million entries holds a million of them.
///
/// Each path is a record of 24 bytes, its parent's record and its last name, whose bytes lie in one growing arena;
/// an open-addressing table of 8-byte slots (32 bits of the hash, then the record's number) finds the record of a
/// name in a directory. That is about 50 bytes a path where a `[String: …]` of whole paths took over 200, and
/// recording a path allocates nothing of its own. The table doubles when it is three-quarters full; a name's place
/// is given by the high bits of its slot's 32 hash bits, so that doubling moves the slots without hashing again.
///
/// Names are compared as `String`s compare them (canonical equivalence: `"é"` precomposed equals `"e\u{301}"`, and
/// `"\u{212A}"`, KELVIN SIGN, equals `"K"`), as a tree of nodes keys its children. Two ASCII names are equal exactly
/// when their bytes are, so names are hashed and compared as bytes until one that is not ASCII is met; from then on
/// every name is hashed and compared as a `String` (the slower way). Hashing uses the standard library's seeded
/// `Hasher`: names chosen to collide cannot be precomputed by an archive's author.
/// - Complexity: Finding or adding a name O(name length), expected.
struct WalkedPaths {
  /// What a path is. A file keeps its entry's number and declared size, for comparing a duplicate entry's bytes.
  enum Kind: UInt8 {
    /// A directory implied by the entries below it, not described by an entry of its own (yet).
    case impliedDirectory
    case directory
    case symbolicLink
    /// A file entry, or a hard link to one (no entry number: its bytes are not compared again).
    case file
  }

  private struct Record {
    var nameStart: UInt32
    /// The parent's record, or ``WalkedPaths/root``.
    var parent: UInt32
    /// A file's entry number; `UInt32.max` for none.
    var entry: UInt32
    var nameLength: UInt16
    var kind: Kind
    /// A file's declared size; -1 for none.
    var size: Int64
  }

  /// The parent of top-level paths.
  static let root = UInt32.max
  private static let noEntry = UInt32.max

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
  func kind(_ record: UInt32) -> Kind { records[Int(record)].kind }

  /// The entry number and declared size of file record `record`, when its bytes can be compared (not a hard link).
  func file(_ record: UInt32) -> (entry: Int, size: Int64?)? {
    let found = records[Int(record)]
    guard found.kind == .file, found.entry != Self.noEntry else { return nil }
    return (Int(found.entry), found.size < 0 ? nil : found.size)
  }

  /// Makes record `record` a `kind`, with a file's `entry` number and declared `size`.
  mutating func set(_ record: UInt32, to kind: Kind, entry: Int? = nil, size: Int64? = nil) {
    records[Int(record)].kind = kind
    records[Int(record)].entry = entry.flatMap { UInt32(exactly: $0) }.map { min($0, Self.noEntry) } ?? Self.noEntry
    records[Int(record)].size = size.map { max($0, -1) } ?? -1
  }

  /// The record of `name` in `parent`, added as `kind` (with a file's `entry` and `size`) if it is not there.
  /// - Returns: `nil` when the table is full (4 GiB of names, or 2³¹ paths): the walk refuses the entry.
  mutating func add(_ name: String, in parent: UInt32, as kind: Kind, entry: Int? = nil, size: Int64? = nil)
    -> UInt32?
  {
    var name = name
    return name.withUTF8 { name in
      let name = UnsafeRawBufferPointer(name)
      if !byString, !Self.isASCII(name) { useStrings() }
      let hash = hash(name, in: parent)
      let (slot, found) = lookup(name, in: parent, hash: hash)
      if let found { return found }
      guard names.count + name.count <= Int(UInt32.max), records.count < 1 << 31,
        name.count <= Int(UInt16.max)
      else { return nil }
      let record = UInt32(records.count)
      records.append(
        Record(
          nameStart: UInt32(names.count), parent: parent, entry: Self.noEntry, nameLength: UInt16(name.count),
          kind: kind, size: -1))
      names.append(contentsOf: name)
      set(record, to: kind, entry: entry, size: size)
      slots[slot] = Self.tag(hash) | UInt64(record + 1)
      if records.count >= slots.count - slots.count / 4 { grow() }
      return record
    }
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
