import Testing

@testable import DocumentPackage

/// The hash cache's log is read from disk, where it may be damaged: a line it cannot take is skipped, never a crash,
/// and a line whose check does not match the rest of it is skipped too, never believed.
@Suite("the hash cache log")
struct HashCacheTests {
  static let digest = String(repeating: "ab", count: 32)
  static let changed = FileTime(seconds: 1_700_000_100, nanoseconds: 7)

  /// The keys parsed from `text`, and how many whole lines were skipped.
  static func parsed(_ text: String) -> (keys: [HashCache.Key], skipped: Int) {
    var keys: [HashCache.Key] = []
    let bytes = Array(text.utf8)
    let skipped = bytes.withUnsafeBufferPointer { buffer in HashCache.parse(buffer) { key, _ in keys.append(key) } }
    return (keys, skipped)
  }

  /// A line as the cache writes it, with its check.
  static func line(_ key: HashCache.Key, digest: String = digest) -> String {
    HashCache.line(key, HashCache.Entry(digest: HashCache.Digest(digest)!, changeTime: changed))
  }

  @Test("a well-formed line is read")
  func wellFormed() {
    let key = HashCache.Key(device: 2049, inode: 1234, size: 5, time: FileTime(seconds: 1_700_000_000, nanoseconds: 1))
    #expect(Self.line(key).hasPrefix("2049 1234 5 1700000000.000000001 1700000100.000000007 \(Self.digest) "))
    #expect(Self.parsed(Self.line(key)) == ([key], 0))
  }

  @Test(
    "numbers out of range skip their line (found by fuzzing: seconds beyond Int64 trapped)",
    arguments: [
      "2049 1234 5 17000000077777777777777777777777777777777777777777700.000000001 1.000000000",  // seconds wrap past Int64
      "2049 1234 18446744073709551615 1700000000.000000001 1.000000000",  // size beyond Int64
      "2049 1234 5 1700000000.1000000000 1.000000000",  // a billion nanoseconds
    ])
  func outOfRange(_ fields: String) {
    let good = HashCache.Key(device: 2049, inode: 1, size: 1, time: FileTime(seconds: 1, nanoseconds: 0))
    let parsed = Self.parsed("\(fields) \(Self.digest) 0123456789abcdef\n" + Self.line(good))
    #expect(parsed.keys == [good])
    #expect(parsed.skipped == 1)
  }

  @Test("a line whose hash, numbers or check were changed is skipped; a torn last line is not counted as damage")
  func checked() {
    let key = HashCache.Key(device: 2049, inode: 1234, size: 5, time: FileTime(seconds: 1_700_000_000, nanoseconds: 1))
    let other = HashCache.Key(device: 2049, inode: 99, size: 5, time: FileTime(seconds: 1_700_000_000, nanoseconds: 1))
    let line = Self.line(key)
    let edits = [
      line.replacingOccurrences(of: Self.digest, with: String(repeating: "cd", count: 32)),  // another hash
      line.replacingOccurrences(of: " 1234 ", with: " 1235 "),  // another inode
      String(line.dropLast(2)) + (line.dropLast().last == "0" ? "1" : "0") + "\n",  // another check
      line.replacingOccurrences(of: " 1700000100.000000007", with: ""),  // the old format: no change time
    ]
    for edited in edits {
      #expect(edited != line)
      #expect(Self.parsed(edited + Self.line(other)) == ([other], 1), "\(edited)")
    }
    #expect(Self.parsed(Self.line(other) + String(line.dropLast(5))) == ([other], 0))
  }
}
