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
  struct Key: Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var time: FileTime
    init(_ status: FileStatus) {
      device = status.device
      inode = status.inode
      size = status.size
      time = status.modificationTime
    }
  }

  let path: FilePath
  private var known: [Key: String] = [:]
  private var added: [(Key, String)] = []

  init(path: FilePath) {
    self.path = path
    guard let data = try? StoreFiles.read(path) else { return }
    known = Self.parse(data)
  }

  /// Parses the log byte by byte (`String.split` costs seconds at 100,000 lines); a line
  /// that is not five well-formed fields (a torn last line) is skipped.
  static func parse(_ data: Data) -> [Key: String] {
    var result: [Key: String] = [:]
    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      let bytes = raw.bindMemory(to: UInt8.self)
      var index = 0
      let count = bytes.count
      func number() -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        while index < count, bytes[index] >= 48, bytes[index] <= 57 {
          value = value &* 10 &+ UInt64(bytes[index] - 48)
          index += 1
          digits += 1
        }
        return digits > 0 ? value : nil
      }
      func skip(_ byte: UInt8) -> Bool {
        guard index < count, bytes[index] == byte else { return false }
        index += 1
        return true
      }
      while index < count {
        let lineStart = index
        var parsed: (Key, String)?
        if let device = number(), skip(32), let inode = number(), skip(32), let size = number(), skip(32),
          let seconds = number(), skip(46), let nanos = number(), skip(32), index + 64 <= count
        {
          let hashStart = index
          index += 64
          if index == count || bytes[index] == 10 {
            let hash = String(decoding: UnsafeBufferPointer(rebasing: bytes[hashStart..<index]), as: UTF8.self)
            if ContentHash.isValid(Substring(hash)) {
              let time = FileTime(seconds: Int64(seconds), nanoseconds: Int32(truncatingIfNeeded: nanos))
              parsed = (Key(device: device, inode: inode, size: Int64(size), time: time), hash)
            }
          }
        }
        if let (key, hash) = parsed { result[key] = hash }
        // Next line.
        index = max(index, lineStart)
        while index < count, bytes[index] != 10 { index += 1 }
        index += 1
      }
    }
    return result
  }

  func hash(for key: Key) -> String? { known[key] }

  mutating func add(_ key: Key, _ hash: String) {
    known[key] = hash
    added.append((key, hash))
  }

  /// Appends the new entries (best effort: a lost cache only costs re-hashing).
  mutating func save() {
    guard !added.isEmpty else { return }
    var text = ""
    for (key, hash) in added { text += "\(key.device) \(key.inode) \(key.size) \(key.time.encoded) \(hash)\n" }
    added = []
    guard let fd = try? Syscalls.openFile(path, [.writeOnly, .create, .append], mode: 0o644) else { return }
    defer { Syscalls.closeFile(fd) }
    let data = Data(text.utf8)
    _ = data.withUnsafeBytes { bytes in try? Syscalls.writeAll(fd, bytes) }
  }
}

extension HashCache.Key {
  init(device: UInt64, inode: UInt64, size: Int64, time: FileTime) {
    self.device = device
    self.inode = inode
    self.size = size
    self.time = time
  }
}
