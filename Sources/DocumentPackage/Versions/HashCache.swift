import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SHA-256 of files already hashed, by device, inode, size and modification time, so that
/// keeping a version re-hashes only files that changed. An append-only log (`hashes`): a torn
/// last line is ignored; a prune that removes blobs starts it afresh.
///
/// Also how a merge finds the contents a writer loaded (its base): the writer's load snapshot
/// (device, inode, size, time) names the hash, and the blob is in the store if a save kept it.
struct HashCache {
  /// A file's stamp: equal stamps are the same bytes, by the one rule of `DiskStamp.swift`.
  typealias Key = DiskStamp

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
  private var known: [Key: Digest] = [:]
  private var added: [(Key, Digest)] = []

  /// Reads the log at `path` (none: an empty cache), in chunks of 1 MiB: the memory it takes is
  /// that of the entries (about 100 bytes each), never that of the whole log as text.
  init(path: FilePath) {
    self.path = path
    guard let fd = try? Syscalls.openFile(path, [.readOnly, .noFollow]) else { return }
    defer { Syscalls.closeFile(fd) }
    // About 110 bytes a line: sized once, the table is not rehashed (twice its size) while it fills.
    if let size = try? Syscalls.status(of: fd).size { known.reserveCapacity(Int(size / 100)) }
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
          continue
        }
      }
      Self.parse(UnsafeBufferPointer(rebasing: bytes[..<end])) { known[$0] = $1 }
      if count == 0 { return }
      carried = filled - end
      if carried > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[end..<filled])) }
    }
  }

  /// Parses whole lines of the log byte by byte (`String.split` costs seconds at 100,000 lines);
  /// a line that is not five well-formed fields (a torn last line, damage) is skipped.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ found: (Key, Digest) -> Void) {
    var index = 0
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
    while index < count {
      let lineStart = index
      if let device = number(), skip(32), let inode = number(), skip(32), let size = number(), skip(32),
        let seconds = number(), skip(46), let nanos = number(), skip(32), index + 64 <= count
      {
        let hashStart = index
        index += 64
        // Numbers out of range are damage (the log is read from disk): the line is skipped.
        if index == count || bytes[index] == 10,
          let digest = Digest(hex: UnsafeBufferPointer(rebasing: bytes[hashStart..<index])),
          let seconds = Int64(exactly: seconds), let size = Int64(exactly: size), nanos < 1_000_000_000
        {
          let time = FileTime(seconds: seconds, nanoseconds: Int32(nanos))
          found(Key(device: device, inode: inode, size: size, time: time), digest)
        }
      }
      // Next line.
      index = max(index, lineStart)
      while index < count, bytes[index] != 10 { index += 1 }
      index += 1
    }
  }

  func hash(for key: Key) -> String? { known[key]?.hex }

  mutating func add(_ key: Key, _ hash: String) {
    guard let digest = Digest(hash) else { return }
    known[key] = digest
    added.append((key, digest))
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
  /// unsettled ones (see ``settledAfter``).
  mutating func save() {
    guard !added.isEmpty else { return }
    var text = ""
    let now = FileTime(Date())
    for (key, digest) in added where Self.isSettled(key.time, now: now) {
      text += "\(key.device) \(key.inode) \(key.size) \(key.time.encoded) \(digest.hex)\n"
    }
    added = []
    guard let fd = try? Syscalls.openFile(path, [.writeOnly, .create, .append], mode: 0o644) else { return }
    defer { Syscalls.closeFile(fd) }
    let data = Data(text.utf8)
    _ = data.withUnsafeBytes { bytes in try? Syscalls.writeAll(fd, bytes) }
  }
}
