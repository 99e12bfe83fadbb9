import DocumentPackage

/// The paths a zip central-directory scan has met, each a file or a directory (those below which an
/// entry lies are implied directories), held as bytes: one arena of the paths back to back and a
/// record per entry (its range and kind), so that recording a path allocates nothing per entry (a
/// `[String: Kind]` costs a string and a hash of it per entry, most of a 100,000-entry scan's time).
///
/// While each entry comes after the one before in path order (names compared by their bytes, a `/`
/// before any other byte: the order of a depth-first walk over sorted names, in which docpkg writes
/// zips), no two entries can share a path, and the records in order are the index: a lookup is a
/// binary search, and nothing is hashed. The first entry out of order turns the table into an
/// open-addressing hash table of record numbers over every path met so far, implied directories
/// included. Each slot of that table is 8 bytes, the record's number and 32 bits of the
/// path's hash, so that a probe reads the record only when those bits match: probes land at random,
/// and at 100,000 paths the table's size decides the scan's speed (24-byte slots holding the
/// records themselves took 2.5× as long per insert, in cache and TLB misses).
///
/// Hashing uses the standard library's seeded `Hasher`: names chosen to collide cannot be
/// precomputed by an archive's author.
///
/// Names are compared as the archive's tree compares them, as `String`s (canonical equivalence:
/// `"é"` precomposed equals `"e\u{301}"`, and `"\u{212A}"`, KELVIN SIGN, equals `"K"`). Two ASCII
/// byte strings are equal exactly when their bytes are, so the table compares bytes until it meets a
/// path that is not ASCII; from then on it keys every path by its `String` (the slower way).
/// - Complexity: Insert O(path length) (expected, once hashed); lookup O(path length × log n) in
///   order, O(path length) expected once hashed; memory about the paths' bytes plus 8 bytes per
///   entry, and 16 per distinct path once hashed.
struct ZipPathTable {
  enum Kind: UInt8 {
    case file = 1
    case directory = 2
  }

  private struct Record {
    var start: UInt32
    var length: UInt16
    var kind: Kind
  }

  /// The arena's memory: allocated once, at its final size, so that views of it stay valid.
  private final class Storage {
    let bytes: UnsafeMutableRawBufferPointer
    init(capacity: Int) { bytes = .allocate(byteCount: max(capacity, 1), alignment: 8) }
    deinit { bytes.deallocate() }
  }

  private let storage: Storage
  /// The recorded paths' bytes, and any bytes appended since (see ``append(_:)``): the first
  /// ``arenaCount`` bytes of this view, valid as long as the table.
  let arena: UnsafeRawBufferPointer
  /// The bytes of ``arena`` in use.
  private(set) var arenaCount = 0
  private var records: [Record] = []
  /// Whether every entry so far came after the one before (the records are then the index, and
  /// `slots` is empty).
  private var ordered = true
  /// The number of entries, and distinct paths, expected: the size of `slots` once they are needed.
  private let expected: Int
  /// 0 for an empty slot, else the high 32 bits of the path's hash, then its record's number + 1.
  private var slots: [UInt64] = []
  private var mask = 0
  /// The parent path of the entry recorded last in the hash table (its ancestors are all recorded).
  private var lastParent: Range<Int>?
  /// Every path by its `String`, once a path that is not ASCII was met (then `slots` is unused).
  private var byString: [String: Kind]?
  /// The number of distinct paths recorded.
  private(set) var count = 0

  /// A table sized for about `expected` paths, whose arena holds at most `bytes` bytes.
  init(expected: Int, bytes: Int) {
    self.expected = expected
    records.reserveCapacity(expected)
    storage = Storage(capacity: min(bytes, Int(UInt32.max)))
    arena = UnsafeRawBufferPointer(storage.bytes)
  }

  /// Appends `bytes` to the arena and returns their range in it; `nil` when the arena is full.
  mutating func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int>? {
    let start = arenaCount
    guard bytes.count <= storage.bytes.count - start else { return nil }
    if let base = bytes.baseAddress {
      (storage.bytes.baseAddress! + start).copyMemory(from: base, byteCount: bytes.count)
    }
    arenaCount += bytes.count
    return start..<arenaCount
  }

  /// Appends one byte to the arena; `false` when the arena is full.
  mutating func append(byte: UInt8) -> Bool {
    guard arenaCount < storage.bytes.count else { return false }
    storage.bytes[arenaCount] = byte
    arenaCount += 1
    return true
  }

  /// What recording an entry did.
  enum Insertion {
    /// A path not met before.
    case new
    /// A directory met before (described, or implied by an entry below it), described again.
    case directoryAgain
    /// A path met before, not both times as a directory; or one of its ancestors is a file.
    case conflict
  }

  /// The kind recorded for `path` (a directory when only entries below it name it), if any.
  mutating func kind(of path: UnsafeRawBufferPointer) -> Kind? {
    if byString == nil, !Self.isASCII(path) { useStrings() }
    if let byString { return byString[String(decoding: path, as: UTF8.self)] }
    if !ordered { return find(path, hash: Self.hash(path)).record.map { records[$0].kind } }
    // The first record not before `path`: `path` itself, or else the first entry below it, if any.
    var low = 0
    var high = records.count
    while low < high {
      let middle = (low + high) / 2
      if Self.order(self.path(of: records[middle]), path) < 0 { low = middle + 1 } else { high = middle }
    }
    guard low < records.count else { return nil }
    let found = self.path(of: records[low])
    if found.count == path.count { return Syscalls.bytesEqual(found, path) ? records[low].kind : nil }
    return Self.isBelow(found, path) ? .directory : nil
  }

  /// Records the entry whose normalized path is at `range` of the arena as `kind`, and its ancestors
  /// (its parent path ends at `parentEnd`, `nil` at the top) as directories.
  mutating func insertEntry(_ range: Range<Int>, as kind: Kind, parentEnd: Int?) -> Insertion {
    let path = UnsafeRawBufferPointer(rebasing: arena[range])
    if byString == nil, !Self.isASCII(path) { useStrings() }
    if ordered, byString == nil {
      let last = records.last
      let previous = last.map { self.path(of: $0) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
      let (order, common) = Self.compare(path, previous)
      if order > 0 {
        let belowPrevious = common == previous.count && path[common] == UInt8(ascii: "/")
        if last?.kind == .file, belowPrevious { return .conflict }
        // Ancestors the previous entry does not lie in (or is) are new: sorted, nothing else named them.
        var newDirectories = 0
        var end = common
        while end < path.count {
          if path[end] == UInt8(ascii: "/"), end > common || !(belowPrevious && last?.kind == .directory) {
            newDirectories += 1
          }
          end += 1
        }
        count += newDirectories + 1
        records.append(Record(start: UInt32(range.lowerBound), length: UInt16(range.count), kind: kind))
        return .new
      }
      useHashing()
    }
    // Ancestors: none may be a file; those not met yet become implied directories. Entries of one
    // directory usually come together, so the ancestors are recorded when the parent changes.
    if let parentEnd {
      let parent = range.lowerBound..<parentEnd
      if lastParent == nil
        || !Syscalls.bytesEqual(
          UnsafeRawBufferPointer(rebasing: arena[parent]), UnsafeRawBufferPointer(rebasing: arena[lastParent!]))
      {
        guard insertAncestors(of: range) else { return .conflict }
        lastParent = parent
      }
    }
    switch insert(range, as: kind) {
    case nil: return .new
    case .directory? where kind == .directory: return .directoryAgain
    default: return .conflict
    }
  }

  /// The bytes of the path `record` holds.
  private func path(of record: Record) -> UnsafeRawBufferPointer {
    let start = Int(record.start)
    return UnsafeRawBufferPointer(rebasing: arena[start..<(start + Int(record.length))])
  }

  /// Negative, zero or positive as `a` comes before, is, or comes after `b` in path order: bytes
  /// compared in turn, a `/` before any other byte, a path before the paths it begins.
  static func order(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int { compare(a, b).order }

  /// ``order(_:_:)``, and the length of the longest common beginning of `a` and `b`.
  private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> (order: Int, common: Int) {
    let common = commonPrefix(a, b)
    if common == a.count || common == b.count { return (a.count - b.count, common) }
    return (rank(a[common]) - rank(b[common]), common)
  }

  /// A byte's place in path order: `/` first.
  private static func rank(_ byte: UInt8) -> Int { byte == UInt8(ascii: "/") ? 0 : Int(byte) + 1 }

  /// The length of the longest common beginning of `a` and `b`, compared 8 bytes at a time.
  private static func commonPrefix(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let length = min(a.count, b.count)
    guard length > 0, let x = a.baseAddress, let y = b.baseAddress else { return 0 }
    var index = 0
    while index + 8 <= length {
      let difference =
        UInt64(littleEndian: x.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        ^ UInt64(littleEndian: y.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      if difference != 0 { return index + difference.trailingZeroBitCount / 8 }
      index += 8
    }
    while index < length, x.load(fromByteOffset: index, as: UInt8.self) == y.load(fromByteOffset: index, as: UInt8.self)
    {
      index += 1
    }
    return index
  }

  /// Whether `path` lies below the directory path `directory` (begins with it and a `/`).
  private static func isBelow(_ path: UnsafeRawBufferPointer, _ directory: UnsafeRawBufferPointer) -> Bool {
    path.count > directory.count && path[directory.count] == UInt8(ascii: "/")
      && Syscalls.bytesEqual(UnsafeRawBufferPointer(rebasing: path[..<directory.count]), directory)
  }

  /// Records every ancestor of the path at `range` as a directory in the hash table; `false` if one
  /// is a file.
  private mutating func insertAncestors(of range: Range<Int>) -> Bool {
    for end in range where arena[end] == UInt8(ascii: "/") {
      if insert(range.lowerBound..<end, as: .directory) == .file { return false }
    }
    return true
  }

  /// Builds the hash table over every record and the directories they imply.
  private mutating func useHashing() {
    ordered = false
    var capacity = 16
    while capacity < expected * 2 { capacity <<= 1 }
    slots = Array(repeating: 0, count: capacity)
    mask = capacity - 1
    let entries = records
    records.removeAll(keepingCapacity: true)
    count = 0
    for entry in entries {
      let range = Int(entry.start)..<(Int(entry.start) + Int(entry.length))
      _ = insertAncestors(of: range)
      _ = insert(range, as: entry.kind)
    }
  }

  /// Records the path at `range` of the arena as `kind` in the hash table, unless it is recorded already.
  /// - Returns: The kind recorded before, or `nil` if the path is new (and now recorded).
  private mutating func insert(_ range: Range<Int>, as kind: Kind) -> Kind? {
    let path = UnsafeRawBufferPointer(rebasing: arena[range])
    if byString == nil, !Self.isASCII(path) {
      useStrings()
    }
    if byString != nil {
      let key = String(decoding: path, as: UTF8.self)
      if let existing = byString![key] { return existing }
      byString![key] = kind
      count += 1
      return nil
    }
    if (count + 1) * 2 > slots.count { grow() }
    let hash = Self.hash(path)
    let found = find(path, hash: hash)
    if let record = found.record { return records[record].kind }
    records.append(Record(start: UInt32(range.lowerBound), length: UInt16(range.count), kind: kind))
    slots[found.slot] = Self.tag(hash) | UInt64(records.count)
    count += 1
    return nil
  }

  /// The record holding `path` (whose hash is `hash`), or else the empty slot where it would go.
  private func find(_ path: UnsafeRawBufferPointer, hash: Int) -> (slot: Int, record: Int?) {
    let tag = Self.tag(hash)
    return slots.withUnsafeBufferPointer { slots in
      var index = hash & mask
      while slots[index] != 0 {
        let slot = slots[index]
        if slot & 0xFFFF_FFFF_0000_0000 == tag {
          let record = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
          let start = Int(records[record].start)
          if Int(records[record].length) == path.count,
            Syscalls.bytesEqual(UnsafeRawBufferPointer(rebasing: arena[start..<(start + path.count)]), path)
          {
            return (index, record)
          }
        }
        index = (index + 1) & mask
      }
      return (index, nil)
    }
  }

  /// The slot bits holding the high 32 bits of `hash` (the low bits choose the slot).
  private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash)) & 0xFFFF_FFFF_0000_0000 }

  /// Moves every recorded path, and the directories the records imply, to ``byString``.
  private mutating func useStrings() {
    var strings: [String: Kind] = [:]
    strings.reserveCapacity(max(16, count * 2))
    for record in records {
      let start = Int(record.start)
      let end = start + Int(record.length)
      if ordered {
        for slash in start..<end where arena[slash] == UInt8(ascii: "/") {
          strings[String(decoding: arena[start..<slash], as: UTF8.self)] = .directory
        }
      }
      strings[String(decoding: arena[start..<end], as: UTF8.self)] = record.kind
    }
    byString = strings
    count = strings.count
    ordered = false
    slots = []
    records = []
  }

  /// The index of the first `/` in `path`, if any.
  static func firstSlash(in path: UnsafeRawBufferPointer) -> Int? {
    guard let base = path.baseAddress else { return nil }
    var index = 0
    while index < path.count {
      if base.load(fromByteOffset: index, as: UInt8.self) == UInt8(ascii: "/") { return index }
      index += 1
    }
    return nil
  }

  static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool { !bytes.contains(where: { $0 >= 0x80 }) }

  /// Doubles the slots, placing each recorded path again by its hash.
  private mutating func grow() {
    slots = Array(repeating: 0, count: slots.count * 2)
    mask = slots.count - 1
    for (number, record) in records.enumerated() {
      let start = Int(record.start)
      let hash = Self.hash(UnsafeRawBufferPointer(rebasing: arena[start..<(start + Int(record.length))]))
      var index = hash & mask
      while slots[index] != 0 { index = (index + 1) & mask }
      slots[index] = Self.tag(hash) | UInt64(number + 1)
    }
  }

  private static func hash(_ path: UnsafeRawBufferPointer) -> Int {
    var hasher = Hasher()
    hasher.combine(bytes: path)
    return hasher.finalize()
  }
}
