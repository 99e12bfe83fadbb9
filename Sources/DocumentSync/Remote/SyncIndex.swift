import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sync folder's `index`: what the last scan of the package found, so that the next scan hashes only files
/// whose device, inode, size or modification time changed (as `git status` does with its index): every directory
/// by path, its tree object's hash, and each entry with the status it had.
///
///     docpkg-sync-index 1
///     D TREEHASH PATH                                  (a directory; the root's PATH is `%`, the empty string)
///     E KIND MODE SIZE REFERENCE DEVICE INODE MTIME NAME   (its entries, as in a tree object, plus their status)
///
/// A path may have several blocks: a scan appends those of the directories that changed, and the last one read
/// wins (see `Scanner.writeIndex(to:)`). It is a cache: an entry is used only when the file's status is the same
/// again, and a lost or torn index only costs hashing again. Two processes writing it at once each append blocks
/// or rename a whole file in (the last one wins).
struct SyncIndex {
  /// One entry of a directory, with the status it was hashed at (files; zero for others).
  struct Entry: Equatable {
    var entry: SyncEntry
    var device: UInt64
    var inode: UInt64
    var time: FileTime
  }

  /// One directory: its tree object's hash and its entries by name.
  struct Directory {
    var tree: String
    var entries: [String: Entry]
  }

  /// The directories by path relative to the package ("" for the root).
  var directories: [String: Directory] = [:]
  /// The size of the file read (0 if it was missing or not an index).
  private(set) var fileBytes = 0
  /// Each directory's block (its `D` line and `E` lines) in the file read: its length in bytes.
  private(set) var blockBytes: [String: Int] = [:]
  /// The bytes of blocks that a later block of the same path replaced (see ``Scanner/writeIndex(to:)``).
  private(set) var supersededBytes = 0

  init() {}

  /// Reads the index at `path`; an empty index if it is missing or not one.
  init(path: FilePath) {
    guard let data = FileManager.default.contents(atPath: path.string) else { return }
    let bytes = [UInt8](data)
    directories = Self.parse(bytes, blocks: &blockBytes, superseded: &supersededBytes)
    if !directories.isEmpty { fileBytes = bytes.count }
  }

  /// Parses the index byte by byte (splitting 100,000 lines as `String`s costs far more); lines that do not
  /// parse are skipped, and so is a directory whose header does not. A later block of a path replaces an earlier
  /// one (a push appends the blocks of the directories that changed).
  static func parse(_ bytes: [UInt8]) -> [String: Directory] {
    var blocks: [String: Int] = [:]
    var superseded = 0
    return parse(bytes, blocks: &blocks, superseded: &superseded)
  }

  /// Parses the index, noting each path's block length in `blocks` and the bytes of replaced blocks in
  /// `superseded`.
  static func parse(_ bytes: [UInt8], blocks: inout [String: Int], superseded: inout Int) -> [String: Directory] {
    var result: [String: Directory] = [:]
    var index = 0
    let count = bytes.count
    func field() -> Substring? {
      let start = index
      while index < count, bytes[index] != 32, bytes[index] != 10 { index += 1 }
      guard index > start else { return nil }
      let text = String(decoding: bytes[start..<index], as: UTF8.self)[...]
      if index < count, bytes[index] == 32 { index += 1 }
      return text
    }
    func number(radix: UInt64 = 10) -> UInt64? {
      var value: UInt64 = 0
      let start = index
      while index < count, bytes[index] >= 48, bytes[index] < 48 + UInt8(radix) {
        value = value &* radix &+ UInt64(bytes[index] - 48)
        index += 1
      }
      guard index > start else { return nil }
      if index < count, bytes[index] == 32 || bytes[index] == 46 { index += 1 }
      return value
    }
    var currentPath: String?
    var current: Directory?
    var blockStart = 0
    func flush(at end: Int) {
      guard let currentPath, let current else { return }
      result[currentPath] = current
      if let earlier = blocks.updateValue(end - blockStart, forKey: currentPath) { superseded += earlier }
    }
    // The header line.
    while index < count, bytes[index] != 10 { index += 1 }
    guard String(decoding: bytes[0..<index], as: UTF8.self) == "docpkg-sync-index 1" else { return [:] }
    index += 1
    while index < count {
      let lineStart = index
      let kind = bytes[index]
      index += 1
      if index < count, bytes[index] == 32 { index += 1 }
      if kind == UInt8(ascii: "D") {
        flush(at: lineStart)
        blockStart = lineStart
        if let tree = field(), let path = field() {
          currentPath = VersionEscaping.unescape(path)
          current = Directory(tree: String(tree), entries: [:])
        } else {
          currentPath = nil
          current = nil
        }
      } else if kind == UInt8(ascii: "E"), current != nil, index + 2 < count,
        let entryKind = SyncEntry.Kind(rawValue: String(UnicodeScalar(bytes[index]))), bytes[index + 1] == 32
      {
        index += 2
        if let mode = number(radix: 8), let size = number(), let reference = field(), let device = number(),
          let inode = number(), let seconds = number(), let nanos = number(), let name = field()
        {
          let value = entryKind == .symlink ? VersionEscaping.unescape(reference) : String(reference)
          current?.entries[VersionEscaping.unescape(name)] = Entry(
            entry: SyncEntry(
              kind: entryKind, mode: UInt16(truncatingIfNeeded: mode), size: Int64(size), reference: value),
            device: device, inode: inode,
            time: FileTime(seconds: Int64(seconds), nanoseconds: Int32(truncatingIfNeeded: nanos)))
        }
      }
      while index < count, bytes[index] != 10 { index += 1 }
      index += 1
    }
    flush(at: count)
    return result
  }

  /// The index's bytes.
  func encoded() -> Data {
    var text = "docpkg-sync-index 1\n"
    for (path, directory) in directories { Self.encode(path, directory, into: &text) }
    return Data(text.utf8)
  }

  /// Appends the block of directory `path` to `text`.
  static func encode(_ path: String, _ directory: Directory, into text: inout String) {
    text += "D \(directory.tree) \(VersionEscaping.escape(path))\n"
    for (name, item) in directory.entries {
      let entry = item.entry
      let reference = entry.kind == .symlink ? VersionEscaping.escape(entry.reference) : entry.reference
      text += "E \(entry.kind.rawValue) \(String(entry.mode, radix: 8)) \(entry.size) \(reference) "
      text += "\(item.device) \(item.inode) \(item.time.seconds).\(item.time.nanoseconds) "
      text += VersionEscaping.escape(name) + "\n"
    }
  }
}
