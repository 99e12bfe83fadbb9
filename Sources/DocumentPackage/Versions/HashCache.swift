import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ")
      guard parts.count == 5, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
        let size = Int64(parts[2]), let time = FileTime(encoded: parts[3]), ContentHash.isValid(parts[4])
      else { continue }
      known[Key(device: device, inode: inode, size: size, time: time)] = String(parts[4])
    }
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
    guard let fd = try? Syscalls.openFile(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode: 0o644) else { return }
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
