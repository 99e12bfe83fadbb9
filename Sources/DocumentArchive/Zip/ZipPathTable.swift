import DocumentPackage

/// The paths a zip central-directory scan has met, each a file or a directory, held as bytes: one
/// arena of the paths back to back and an open-addressing hash table of ranges into it, so that
/// recording a path allocates nothing per entry (a `[String: Kind]` costs a string and a hash of
/// it per entry, most of a 100,000-entry scan's time).
///
/// Hashing uses the standard library's seeded `Hasher`: names chosen to collide cannot be
/// precomputed by an archive's author.
///
/// Names are compared as the archive's tree compares them, as `String`s (canonical equivalence:
/// `"é"` precomposed equals `"e\u{301}"`, and `"\u{212A}"`, KELVIN SIGN, equals `"K"`). Two ASCII
/// byte strings are equal exactly when their bytes are, so the table compares bytes until it meets a
/// path that is not ASCII; from then on it keys every path by its `String` (the slower way).
/// - Complexity: Insert and lookup O(path length) expected; memory about the paths' bytes plus
///   32 bytes per distinct path.
struct ZipPathTable {
  enum Kind: UInt8 {
    case file = 1
    case directory = 2
  }

  private struct Slot {
    var hash: Int = 0
    var start: UInt32 = 0
    var length: UInt16 = 0
    /// 0 for an empty slot, else a ``Kind`` raw value.
    var kind: UInt8 = 0
  }

  /// The recorded paths' bytes, and any bytes appended since (see ``append(_:)``).
  private(set) var arena: [UInt8] = []
  private var slots: [Slot]
  private var mask: Int
  /// Every path by its `String`, once a path that is not ASCII was met (then `slots` is unused).
  private var byString: [String: Kind]?
  /// The number of distinct paths recorded.
  private(set) var count = 0

  /// A table sized for about `expected` paths without growing.
  init(expected: Int) {
    var capacity = 16
    while capacity < expected * 2 { capacity <<= 1 }
    slots = Array(repeating: Slot(), count: capacity)
    mask = capacity - 1
  }

  /// Appends `bytes` to the arena and returns their range in it; `nil` when the arena would pass the
  /// 4 GiB its 32-bit offsets reach.
  mutating func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int>? {
    let start = arena.count
    guard start + bytes.count <= Int(UInt32.max) else { return nil }
    arena.append(contentsOf: bytes)
    return start..<arena.count
  }

  /// Appends one byte to the arena.
  mutating func append(byte: UInt8) { arena.append(byte) }

  /// The kind recorded for `path`, if any.
  mutating func kind(of path: UnsafeRawBufferPointer) -> Kind? {
    if byString == nil, !Self.isASCII(path) { useStrings() }
    if let byString { return byString[String(decoding: path, as: UTF8.self)] }
    let hash = Self.hash(path)
    return arena.withUnsafeBytes { arena in
      var index = hash & mask
      while slots[index].kind != 0 {
        if slots[index].hash == hash, Self.equal(slots[index], path, in: arena) {
          return Kind(rawValue: slots[index].kind)
        }
        index = (index + 1) & mask
      }
      return nil
    }
  }

  /// Records the path at `range` of the arena as `kind`, unless it is recorded already.
  /// - Returns: The kind recorded before, or `nil` if the path is new (and now recorded).
  mutating func insert(_ range: Range<Int>, as kind: Kind) -> Kind? {
    if byString == nil, !arena.withUnsafeBytes({ Self.isASCII(UnsafeRawBufferPointer(rebasing: $0[range])) }) {
      useStrings()
    }
    if byString != nil {
      let key = String(decoding: arena[range], as: UTF8.self)
      if let existing = byString![key] { return existing }
      byString![key] = kind
      count += 1
      return nil
    }
    if (count + 1) * 2 > slots.count { grow() }
    let found: (index: Int, hash: Int, existing: Kind?) = arena.withUnsafeBytes { arena in
      let path = UnsafeRawBufferPointer(rebasing: arena[range])
      let hash = Self.hash(path)
      var index = hash & mask
      while slots[index].kind != 0 {
        if slots[index].hash == hash, Self.equal(slots[index], path, in: arena) {
          return (index, hash, Kind(rawValue: slots[index].kind))
        }
        index = (index + 1) & mask
      }
      return (index, hash, nil)
    }
    if let existing = found.existing { return existing }
    slots[found.index] = Slot(
      hash: found.hash, start: UInt32(range.lowerBound), length: UInt16(range.count), kind: kind.rawValue)
    count += 1
    return nil
  }

  /// Moves every recorded path to ``byString``.
  private mutating func useStrings() {
    var strings: [String: Kind] = [:]
    strings.reserveCapacity(max(16, count * 2))
    for slot in slots where slot.kind != 0 {
      let start = Int(slot.start)
      strings[String(decoding: arena[start..<(start + Int(slot.length))], as: UTF8.self)] = Kind(rawValue: slot.kind)
    }
    byString = strings
    slots = []
  }

  static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool { !bytes.contains(where: { $0 >= 0x80 }) }

  /// Doubles the slots, placing each recorded path again by its stored hash.
  private mutating func grow() {
    let old = slots
    slots = Array(repeating: Slot(), count: old.count * 2)
    mask = slots.count - 1
    for slot in old where slot.kind != 0 {
      var index = slot.hash & mask
      while slots[index].kind != 0 { index = (index + 1) & mask }
      slots[index] = slot
    }
  }

  private static func hash(_ path: UnsafeRawBufferPointer) -> Int {
    var hasher = Hasher()
    hasher.combine(bytes: path)
    return hasher.finalize()
  }

  private static func equal(_ slot: Slot, _ path: UnsafeRawBufferPointer, in arena: UnsafeRawBufferPointer) -> Bool {
    guard Int(slot.length) == path.count else { return false }
    let start = Int(slot.start)
    return Syscalls.bytesEqual(UnsafeRawBufferPointer(rebasing: arena[start..<(start + path.count)]), path)
  }
}
