import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One line of a tree object: `KIND MODE MTIME SIZE HASH-OR-TARGET NAME`, KIND `f`/`d`/`l`, MODE octal,
/// MTIME `SECONDS.NANOS`, names and link destinations percent-escaped (``VersionEscaping``).
///
/// The one tree format of the package's content-addressed states: a version's trees in the ``VersionStore`` and
/// the trees DocumentSync pushes to a remote are the same objects (the same bytes, the same SHA-256), so a state
/// pushed and the same state kept as a version are one tree.
///
/// **Times.** A file's and a link's line carry their modification time: it is part of the state (a file
/// manager shows it; restoring a version and pulling from a remote set it back). A directory's line carries
/// none (`0.000000000`): a directory's time changes with its entries, which its tree names already, and no
/// save or pull can set it without rebuilding the directory's parent; trees that carried it would differ after
/// every pull and every save that replaced a subtree. Trees written by earlier releases carry directory times;
/// they still read (a version restores them), and the next tree written for the directory drops it.
package struct TreeEntry: Hashable, Sendable {
  package var kind: NodeKind
  package var permissions: FilePermissions
  package var time: FileTime
  package var size: Int64
  /// The blob (file) or tree (directory) hash, or a link's destination.
  package var reference: String
  package var name: String

  /// The time a directory's line carries (see the type's discussion).
  package static let directoryTime = FileTime(seconds: 0)

  package var line: String {
    let code = kind == .file ? "f" : kind == .directory ? "d" : "l"
    let ref = kind == .symlink ? VersionEscaping.escape(reference) : reference
    let time = kind == .directory ? Self.directoryTime : time
    return
      "\(code) \(String(permissions.rawValue, radix: 8)) \(time.encoded) \(size) \(ref) \(VersionEscaping.escape(name))\n"
  }

  package init(
    kind: NodeKind, permissions: FilePermissions, time: FileTime, size: Int64, reference: String, name: String
  ) {
    self.kind = kind
    self.permissions = permissions
    self.time = kind == .directory ? Self.directoryTime : time
    self.size = size
    self.reference = reference
    self.name = name
  }

  init?(line: Substring) {
    let parts = VersionEscaping.fields(line)
    guard parts.count == 6, let mode = CModeT(parts[1], radix: 8), let time = FileTime(encoded: parts[2]),
      let size = Int64(parts[3])
    else { return nil }
    switch parts[0] {
    case "f": kind = .file
    case "d": kind = .directory
    case "l": kind = .symlink
    default: return nil
    }
    if kind != .symlink && !ContentHash.isValid(parts[4]) { return nil }
    permissions = FilePermissions(rawValue: mode)
    self.time = time
    self.size = size
    reference = kind == .symlink ? VersionEscaping.unescape(parts[4]) : String(parts[4])
    name = VersionEscaping.unescape(parts[5])
  }

  /// The blob (`f`) and tree (`d`) hashes a tree object refers to, scanned byte by byte
  /// (parsing whole entries costs seconds per 100,000 lines; pruning needs only these).
  static func references(_ data: Data) -> [(isTree: Bool, hash: String)] {
    var result: [(isTree: Bool, hash: String)] = []
    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      let bytes = raw.bindMemory(to: UInt8.self)
      var index = 0
      while index < bytes.count {
        let kind = bytes[index]
        var spaces = 0
        while index < bytes.count, bytes[index] != 10, spaces < 4 {
          if bytes[index] == 32 { spaces += 1 }
          index += 1
        }
        let start = index
        while index < bytes.count, bytes[index] != 10, bytes[index] != 32 { index += 1 }
        if spaces == 4, index - start == 64, kind == 102 || kind == 100 {
          result.append(
            (kind == 100, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)))
        }
        while index < bytes.count, bytes[index] != 10 { index += 1 }
        index += 1
      }
    }
    return result
  }

  /// The lines of tree object `a` that `b` does not hold, and those of `b` that `a` does not, compared as
  /// bytes (a line is an entry whole: the same line is the same entry). Neither is parsed.
  static func linesDiffering(_ a: Data, _ b: Data) -> (onlyInA: [String], onlyInB: [String]) {
    let left = [UInt8](a).split(separator: 10).map(RawLine.init)
    let right = [UInt8](b).split(separator: 10).map(RawLine.init)
    let inLeft = Set(left)
    let inRight = Set(right)
    func text(_ line: RawLine) -> String { String(decoding: line.bytes, as: UTF8.self) }
    return (left.filter { !inRight.contains($0) }.map(text), right.filter { !inLeft.contains($0) }.map(text))
  }

  /// A line's bytes, hashed as one run of bytes (not byte by byte, as an `ArraySlice` hashes).
  private struct RawLine: Hashable {
    let bytes: ArraySlice<UInt8>
    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
  }

  package static func parse(_ data: Data) -> [TreeEntry]? {
    var entries: [TreeEntry] = []
    let text = String(decoding: data, as: UTF8.self)
    // Lines found at their line-feed bytes, empty ones skipped (splitting at Characters costs twice the parse).
    let bytes = text.utf8
    var start = bytes.startIndex
    var index = start
    while index <= bytes.endIndex {
      if index == bytes.endIndex || bytes[index] == 10 {
        if start < index {
          guard let entry = TreeEntry(line: text[start..<index]) else { return nil }
          entries.append(entry)
        }
        if index == bytes.endIndex { break }
        start = bytes.index(after: index)
      }
      index = bytes.index(after: index)
    }
    return entries
  }
}

/// A tree object: one directory's entries (``TreeEntry``), one line each in the bytes of their names' order,
/// named by the SHA-256 of those bytes, so that equal directories are one object wherever they are kept (a
/// version store's `objects/`, a remote's `trees/`).
package struct TreeObject: Hashable, Sendable {
  /// The entries by name.
  package var entries: [String: TreeEntry]

  package init(entries: [TreeEntry] = []) {
    var byName: [String: TreeEntry] = [:]
    byName.reserveCapacity(entries.count)
    for entry in entries { byName[entry.name] = entry }
    self.entries = byName
  }

  /// Parses a tree object; nil if a line does not parse.
  package init?(decoding data: Data) {
    guard let entries = TreeEntry.parse(data) else { return nil }
    self.init(entries: entries)
  }

  /// The object's bytes.
  package func encoded() -> Data {
    var text = ""
    for name in entries.keys.sorted(by: { $0.utf8Precedes($1) }) { text += entries[name]!.line }
    return Data(text.utf8)
  }

  /// The object's name: the SHA-256 of ``encoded()`` in hex.
  package var hash: String { ContentHash.of(encoded()) }

  /// The hashes of the trees of its subdirectories.
  package var subtrees: [String] { entries.values.filter { $0.kind == .directory }.map(\.reference) }
}
