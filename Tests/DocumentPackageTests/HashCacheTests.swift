import Testing

@testable import DocumentPackage

/// The hash cache's log is read from disk, where it may be damaged: a line it cannot take is skipped, never a crash.
@Suite("the hash cache log")
struct HashCacheTests {
  static let digest = String(repeating: "ab", count: 32)

  static func parsed(_ text: String) -> [HashCache.Key] {
    var keys: [HashCache.Key] = []
    let bytes = Array(text.utf8)
    bytes.withUnsafeBufferPointer { buffer in HashCache.parse(buffer) { key, _ in keys.append(key) } }
    return keys
  }

  @Test("a well-formed line is read")
  func wellFormed() {
    let keys = Self.parsed("2049 1234 5 1700000000.000000001 \(Self.digest)\n")
    #expect(
      keys == [
        HashCache.Key(device: 2049, inode: 1234, size: 5, time: FileTime(seconds: 1_700_000_000, nanoseconds: 1))
      ])
  }

  @Test(
    "numbers out of range skip their line (found by fuzzing: seconds beyond Int64 trapped)",
    arguments: [
      "2049 1234 5 17000000077777777777777777777777777777777777777777700.000000001",  // seconds wrap past Int64
      "2049 1234 18446744073709551615 1700000000.000000001",  // size beyond Int64
      "2049 1234 5 1700000000.1000000000",  // a billion nanoseconds
    ])
  func outOfRange(_ fields: String) {
    let keys = Self.parsed("\(fields) \(Self.digest)\n2049 1 1 1.000000000 \(Self.digest)\n")
    #expect(keys == [HashCache.Key(device: 2049, inode: 1, size: 1, time: FileTime(seconds: 1, nanoseconds: 0))])
  }
}
