import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SHA-256 of files already hashed, by device, inode, size and modification time (the file's
/// ``DiskStamp``) and change time, so that keeping a version re-hashes only files that changed.
/// An append-only log (`hashes`): a torn last line is ignored; a prune that removes blobs starts
/// it afresh.
///
/// **Why the change time.** The stamp alone tells a file rewritten in place apart only while its
/// modification time moves with it: `dd conv=notrunc` followed by `touch -d` (or `cp -p` of a
/// same-size file with the same time) leaves device, inode, size and modification time as they
/// were, and a cache keyed by them alone would give the next version the bytes it hashed before.
/// The change time cannot be set back by a program (git's index compares it for the same reason).
/// It also moves when a file gains or loses a hard link, or is renamed. A save of ours exchanges
/// only the entry it changed (its old bytes are hashed anyway), but one that rebuilds a directory
/// links the unchanged files in it into the new one and then removes the old names: the save
/// notes each such file's change time before and after (``RelinkedFile``) and the cache follows
/// (``relinked(_:)``), so those files are not read again.
///
/// **Self-checking.** Each line ends with a checksum of the rest of it (``lineCheck(_:)``), so a
/// line damaged on disk or edited by hand is skipped (its file is hashed again, and the new line
/// appended wins) instead of naming bytes the file does not hold. ``discardedLines`` counts them.
///
/// Also how a merge finds the contents a writer loaded (its base): the writer's load snapshot
/// (device, inode, size, time) names the hash (``hash(forLoaded:)``), and the blob is in the store
/// if a save kept it.
struct HashCache {
  /// A file's stamp: equal stamps (and change times) are the same bytes, by the one rule of
  /// `DiskStamp.swift` and the change time (see the type's discussion).
  typealias Key = DiskStamp

  /// What the cache knows of one stamp: the hash, and the change time it was hashed at.
  struct Entry {
    var digest: Digest
    var changeTime: FileTime
  }

  /// A SHA-256 as 32 bytes in four words: a cache of 100,000 files holds 100,000 of them, and a
  /// 64-digit `String` each (a heap object) would cost about four times the memory.
  struct Digest: Hashable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    /// Parses 64 lowercase hex digits; nil for anything else.
    init?(hex bytes: UnsafeBufferPointer<UInt8>) {
      guard bytes.count == 64 else { return nil }
      var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      for (index, byte) in bytes.enumerated() {
        let value: UInt64
        switch byte {
        case 48...57: value = UInt64(byte - 48)
        case 97...102: value = UInt64(byte - 87)
        default: return nil
        }
        switch index >> 4 {
        case 0: words.0 = words.0 << 4 | value
        case 1: words.1 = words.1 << 4 | value
        case 2: words.2 = words.2 << 4 | value
        default: words.3 = words.3 << 4 | value
        }
      }
      self.words = words
    }

    init?(_ hash: String) {
      var hash = hash
      guard let digest = hash.withUTF8({ Digest(hex: $0) }) else { return nil }
      self = digest
    }

    /// The 64 lowercase hex digits.
    var hex: String {
      let digits = Array("0123456789abcdef".utf8)
      var bytes = [UInt8](repeating: 0, count: 64)
      for (index, word) in [words.0, words.1, words.2, words.3].enumerated() {
        for nibble in 0..<16 { bytes[index * 16 + nibble] = digits[Int((word >> UInt64(60 - 4 * nibble)) & 15)] }
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    static func == (lhs: Digest, rhs: Digest) -> Bool {
      lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
        && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Swift.Hasher) {
      hasher.combine(words.0)
      hasher.combine(words.1)
    }
  }

  let path: FilePath
  private var known: [Key: Entry] = [:]
  private var added: [(Key, Entry)] = []
  /// How many whole lines of the log failed their checksum when it was read (damage on disk, a
  /// hand edit, a line of an older format): skipped, never believed.
  private(set) var discardedLines = 0

  /// Appends `entries` (a file's status and the hash of its bytes) to the log at `path` without reading it: what a
  /// writer that has just hashed the files it wrote knows (see ``save()`` for what is left out).
  static func append(_ entries: [(status: FileStatus, hash: String)], to path: FilePath) {
    guard !entries.isEmpty else { return }
    var cache = HashCache(unreadAt: path)
    for (status, hash) in entries { cache.add(status, hash) }
    cache.save()
  }

  /// An empty cache of the log at `path`, not read: ``save()`` appends to it.
  private init(unreadAt path: FilePath) { self.path = path }

  /// Reads the log at `path` (none: an empty cache), in chunks of 1 MiB: the memory it takes is
  /// that of the entries (about 100 bytes each), never that of the whole log as text.
  init(path: FilePath) {
    self.path = path
    guard let fd = try? Syscalls.openFile(path, [.readOnly, .noFollow]) else { return }
    defer { Syscalls.closeFile(fd) }
    // About 150 bytes a line: sized once, the table is not rehashed (twice its size) while it fills.
    if let size = try? Syscalls.status(of: fd).size { known.reserveCapacity(Int(size / 140)) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: Syscalls.readBufferAlignment)
    defer { buffer.deallocate() }
    var carried = 0  // bytes of an unfinished line moved to the buffer's start
    while true {
      let free = UnsafeMutableRawBufferPointer(rebasing: buffer[carried...])
      guard let count = try? Syscalls.readBytes(fd, into: free) else { return }
      let filled = carried + count
      let bytes = UnsafeBufferPointer(rebasing: buffer.bindMemory(to: UInt8.self)[..<filled])
      // Whole lines only, unless the log ended (then a torn last line is skipped by the parser).
      var end = filled
      if count > 0 {
        while end > 0, bytes[end - 1] != 10 { end -= 1 }
        if end == 0 {  // a line longer than the buffer: not one of ours; drop it
          carried = 0
          discardedLines += 1
          continue
        }
      }
      discardedLines += Self.parse(UnsafeBufferPointer(rebasing: bytes[..<end])) { known[$0] = $1 }
      if count == 0 { return }
      carried = filled - end
      if carried > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[end..<filled])) }
    }
  }

  /// The checksum that ends each line of the log, of the line's bytes before it: FNV-1a's
  /// multiply, a word of 8 bytes at a time, each step followed by a shift that folds the high half
  /// in, and the length mixed in first. Each step is a bijection of the running value, so a change
  /// within one word always changes the check; others are missed once in 2^64. Not a defence
  /// against someone forging lines on purpose (they could write the package's files as well), but
  /// damage or an edit is caught, at two multiplications per 8 bytes (a SHA-256 of each line, or
  /// FNV a byte at a time, would double the cost of reading 100,000 lines).
  static func lineCheck(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    let prime: UInt64 = 0x100_0000_01b3
    var value: UInt64 = (0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)) &* prime
    let raw = UnsafeRawBufferPointer(bytes)
    var offset = 0
    while offset + 8 <= raw.count {
      value = (value ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) &* prime
      value ^= value >> 32
      offset += 8
    }
    while offset < raw.count {
      value = (value ^ UInt64(raw[offset])) &* prime
      offset += 1
    }
    return value
  }

  /// Parses whole lines of the log byte by byte (`String.split` costs seconds at 100,000 lines):
  /// `device inode size mtime ctime sha256 check`. A line that is not seven well-formed fields, or
  /// whose check does not match the rest of it, is skipped.
  /// - Returns: How many lines ending in a newline were skipped (a torn last line is not counted:
  ///   a write cut short by a crash leaves one, and it is no sign of damage).
  @discardableResult
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ found: (Key, Entry) -> Void) -> Int {
    var index = 0
    var skipped = 0
    let count = bytes.count
    /// The decimal number at `index`; `nil` if there is none or it does not fit (damage).
    func number() -> UInt64? {
      var value: UInt64 = 0
      var digits = 0
      var overflow = false
      while index < count, bytes[index] >= 48, bytes[index] <= 57 {
        let (times, o1) = value.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times.addingReportingOverflow(UInt64(bytes[index] - 48))
        overflow = overflow || o1 || o2
        value = sum
        index += 1
        digits += 1
      }
      return digits > 0 && !overflow ? value : nil
    }
    func skip(_ byte: UInt8) -> Bool {
      guard index < count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    /// The time `seconds.nanoseconds` at `index`; nil if malformed or out of range.
    func fileTime() -> FileTime? {
      guard let seconds = number(), skip(46), let nanos = number(), let seconds = Int64(exactly: seconds),
        nanos < 1_000_000_000
      else { return nil }
      return FileTime(seconds: seconds, nanoseconds: Int32(nanos))
    }
    /// 16 lowercase hex digits at `index`, as a number; nil otherwise.
    func check() -> UInt64? {
      guard index + 16 <= count else { return nil }
      var value: UInt64 = 0
      for byte in bytes[index..<index + 16] {
        switch byte {
        case 48...57: value = value << 4 | UInt64(byte - 48)
        case 97...102: value = value << 4 | UInt64(byte - 87)
        default: return nil
        }
      }
      index += 16
      return value
    }
    while index < count {
      let lineStart = index
      var taken = false
      // Numbers out of range are damage (the log is read from disk): the line is skipped.
      if let device = number(), skip(32), let inode = number(), skip(32), let size = number(),
        let size = Int64(exactly: size), skip(32), let time = fileTime(), skip(32), let changeTime = fileTime(),
        skip(32),
        index + 64 <= count
      {
        let hashStart = index
        index += 64
        let hashEnd = index
        if skip(32), let check = check(), index == count || bytes[index] == 10,
          check == lineCheck(UnsafeBufferPointer(rebasing: bytes[lineStart..<hashEnd])),
          let digest = Digest(hex: UnsafeBufferPointer(rebasing: bytes[hashStart..<hashEnd]))
        {
          found(
            Key(device: device, inode: inode, size: size, time: time), Entry(digest: digest, changeTime: changeTime))
          taken = true
        }
      }
      // Next line.
      index = max(index, lineStart)
      while index < count, bytes[index] != 10 { index += 1 }
      if !taken, index < count { skipped += 1 }
      index += 1
    }
    return skipped
  }

  /// The hash of the file whose status is `status`, if the cache knows it at that stamp and
  /// change time.
  func hash(for status: FileStatus) -> String? {
    guard let entry = known[Key(status)], entry.changeTime == status.changeTime else { return nil }
    return entry.digest.hex
  }

  /// The hash the cache knows for a merge base: the file a writer loaded, by its load snapshot's
  /// stamp whatever its change time then. The change time is not compared here: a deferred save
  /// moves the replaced file into the store's pending folder (a rename moves it) before the cache
  /// learns its hash, so the one recorded is never the one the writer saw; compared, every text
  /// merge after such a save would become a conflict.
  func hash(forLoaded status: FileStatus) -> String? { known[Key(status)]?.digest.hex }

  /// Records `hash` as the contents of the file whose status (when its bytes were read) is `status`.
  mutating func add(_ status: FileStatus, _ hash: String) {
    guard let digest = Digest(hash) else { return }
    let entry = Entry(digest: digest, changeTime: status.changeTime)
    known[Key(status)] = entry
    added.append((Key(status), entry))
  }

  /// Takes the change time a save's own link or unlink gave `file` for the one it had (see
  /// ``RelinkedFile``): an entry hashed at the change time before is kept at the one after.
  mutating func relinked(_ file: RelinkedFile) {
    let key = Key(file.before)
    guard let entry = known[key], entry.changeTime == file.before.changeTime else { return }
    let moved = Entry(digest: entry.digest, changeTime: file.changedAfter)
    known[key] = moved
    added.append((key, moved))
  }

  /// Tells the cache at `path` of `files` (see ``relinked(_:)``); reads it only if there are any.
  static func noteRelinked(_ files: [RelinkedFile], at path: FilePath) {
    guard !files.isEmpty else { return }
    var cache = HashCache(path: path)
    for file in files { cache.relinked(file) }
    cache.save()
  }

  /// One line of the log, with its check and newline.
  static func line(_ key: Key, _ entry: Entry) -> String {
    let text =
      "\(key.device) \(key.inode) \(key.size) \(key.time.encoded) \(entry.changeTime.encoded) \(entry.digest.hex)"
    return checked(text) + "\n"
  }

  /// `line` with its check appended: a space and ``lineCheck(_:)`` of `line` in 16 hex digits.
  static func checked(_ line: String) -> String {
    "\(line) \(checkDigits(Array(line.utf8).withUnsafeBufferPointer { lineCheck($0) }))"
  }

  /// A line's check as it is written: 16 hex digits.
  static func checkDigits(_ check: UInt64) -> String {
    let digits = String(check, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// A checked line split into its text and its check (the last field); nil when it has none.
  static func splitCheck(_ line: Substring) -> (text: Substring, check: UInt64)? {
    guard let space = line.lastIndex(of: " "), let check = UInt64(line[line.index(after: space)...], radix: 16)
    else { return nil }
    return (line[..<space], check)
  }

  /// A line of a store cache read from disk (the directory cache's) without its check (the last
  /// field: see ``checked(_:)``), or nil if the check does not match: a line damaged on disk or
  /// edited by hand is not believed.
  static func verified(_ line: Substring) -> Substring? {
    guard let (rest, check) = splitCheck(line) else { return nil }
    return Array(rest.utf8).withUnsafeBufferPointer { lineCheck($0) } == check ? rest : nil
  }

  /// How many seconds a whole-second time must lie before now for its entry to be kept across runs.
  /// A file system that keeps whole seconds or less (FAT: 2 s; exFAT and FUSE file systems here show
  /// no nanoseconds) gives a file written twice within that time the same time, and with the same
  /// size and inode it would be taken for unchanged; so such entries of files changed just now are
  /// left out, and hashed again next time (git's "racily clean" entries). Times with nanoseconds come
  /// from file systems whose clock is fine enough not to need this.
  static let settledAfter: Int64 = 3

  /// Whether a cache entry with `time` may be kept across runs (see ``settledAfter``).
  static func isSettled(_ time: FileTime, now: FileTime = FileTime(Date())) -> Bool {
    time.nanoseconds != 0 || now.seconds - time.seconds > settledAfter
  }

  /// Appends the new entries (best effort: a lost cache only costs re-hashing), except the
  /// unsettled ones (see ``settledAfter``). A log that had damaged lines is written anew instead,
  /// without them (atomically, staged in the store's `tmp`; where that fails, appended to as usual).
  mutating func save() {
    if discardedLines > 0, rewrite() { return }
    guard !added.isEmpty else { return }
    var text = ""
    let now = FileTime(Date())
    for (key, entry) in added where Self.isSettled(key.time, now: now) && Self.isSettled(entry.changeTime, now: now) {
      text += Self.line(key, entry)
    }
    added = []
    guard let fd = try? Syscalls.openFile(path, [.writeOnly, .create, .append], mode: 0o644) else { return }
    defer { Syscalls.closeFile(fd) }
    let data = Data(text.utf8)
    _ = data.withUnsafeBytes { bytes in try? Syscalls.writeAll(fd, bytes) }
  }

  /// Writes the log anew with the entries known (the settled ones); whether it could.
  private mutating func rewrite() -> Bool {
    var text = ""
    let now = FileTime(Date())
    for (key, entry) in known where Self.isSettled(key.time, now: now) && Self.isSettled(entry.changeTime, now: now) {
      text += Self.line(key, entry)
    }
    let temporary = path.removingLastComponent().appending("tmp")
    guard (try? StoreFiles.writeAtomically(Data(text.utf8), to: path, temporary: temporary)) != nil else {
      return false
    }
    added = []
    discardedLines = 0
    return true
  }
}
