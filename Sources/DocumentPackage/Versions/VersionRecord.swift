import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A version record of a ``VersionStore`` (`versions/ID`); its root tree is a ``TreeObject``
/// (one directory's entries, stored by its SHA-256 like a blob, so unchanged directories are
/// shared between versions).
///
/// Record: `docpkg-version 1`, then `date SECONDS.NANOS`, `origin saved|conflict`,
/// `resolved yes|no`, `size BYTES`, `root TREEHASH MODE MTIME`, one `conflict PATH` per
/// conflicting entry, one `unkept PATH` per entry a deferred copy could not keep, `remote NAME TREE` for a
/// version whose files the store has only in part: the others are on remote NAME, in its state TREE (see
/// ``PackageVersion/remote``), and `follows ID`: the newest version recorded before this one when it
/// was written, so that a record deleted by another program is told from an id never recorded or a
/// version removed (``VersionStore/removedIDs``). Last, `check HEX`: the first 16 hex digits of the SHA-256 of every
/// line before it, so that a record changed after it was written (a date, a size or the root's mode edited by
/// hand) is damage, not a version (records of earlier releases, which have none, still read).
struct VersionRecord {
  var version: PackageVersion
  var rootTree: String
  /// For a version held in part by a remote: the root tree of the remote's state that holds the other files.
  var remoteTree: String?
  var rootPermissions: FilePermissions
  var rootTime: FileTime
  /// The newest version recorded before this one when this record was written (nil: none, or a
  /// record of an earlier release).
  var follows: Int?

  func encoded() -> Data {
    var text = "docpkg-version 1\n"
    text += "date \(FileTime(version.date).encoded)\n"
    text += "origin \(version.origin.rawValue)\n"
    text += "resolved \(version.isResolved ? "yes" : "no")\n"
    text += "size \(version.size)\n"
    text += "root \(rootTree) \(String(rootPermissions.rawValue, radix: 8)) \(rootTime.encoded)\n"
    for path in version.conflictPaths { text += "conflict \(VersionEscaping.escape(path))\n" }
    for path in version.unkeptPaths { text += "unkept \(VersionEscaping.escape(path))\n" }
    if let remote = version.remote, let remoteTree {
      text += "remote \(VersionEscaping.escape(remote)) \(remoteTree)\n"
    }
    if let follows { text += "follows \(follows)\n" }
    text += "check \(Self.check(of: text[...]))\n"
    return Data(text.utf8)
  }

  /// The check of a record's lines before its `check` line.
  private static func check(of text: Substring) -> String { String(ContentHash.of(Data(text.utf8)).prefix(16)) }

  /// Whether a record that ends with a `check` line matches it (true for one without).
  static func checkHolds(_ data: Data) -> Bool {
    let text = String(decoding: data, as: UTF8.self)
    guard let last = text.split(separator: "\n").last, last.hasPrefix("check ") else { return true }
    return last.dropFirst("check ".count) == check(of: text[..<last.startIndex])
  }

  init(
    version: PackageVersion, rootTree: String, rootPermissions: FilePermissions, rootTime: FileTime,
    remoteTree: String? = nil, follows: Int? = nil
  ) {
    self.follows = follows
    self.version = version
    self.rootTree = rootTree
    self.remoteTree = remoteTree
    self.rootPermissions = rootPermissions
    self.rootTime = rootTime
  }

  /// Parses a record; `nil` if it is not a whole one (a torn or foreign file is never trusted:
  /// ``RecordDamage`` says what is wrong, and the store reports it).
  init?(id: Int, data: Data) {
    guard data.last == 10 else { return nil }  // every record ends with a newline: this one was cut
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
    guard lines.first == "docpkg-version 1", Self.checkHolds(data) else { return nil }
    var date: FileTime?, origin: PackageVersion.Origin?, resolved: Bool?, size: Int64?
    var root: (String, FilePermissions, FileTime)?
    var conflicts: [String] = []
    var unkept: [String] = []
    var remote: (String, String)?
    var follows: Int?
    for line in lines.dropFirst() {
      let parts = VersionEscaping.fields(line)
      guard parts.count >= 2 else { return nil }
      switch parts[0] {
      case "date": date = FileTime(encoded: parts[1])
      case "origin": origin = PackageVersion.Origin(rawValue: String(parts[1]))
      case "resolved": resolved = parts[1] == "yes"
      case "size": size = Int64(parts[1])
      case "root":
        guard parts.count == 4, ContentHash.isValid(parts[1]), let mode = CModeT(parts[2], radix: 8),
          let time = FileTime(encoded: parts[3])
        else { return nil }
        root = (String(parts[1]), FilePermissions(rawValue: mode), time)
      case "conflict": conflicts.append(VersionEscaping.unescape(parts[1]))
      case "unkept": unkept.append(VersionEscaping.unescape(parts[1]))
      case "remote":
        guard parts.count == 3, ContentHash.isValid(parts[2]) else { return nil }
        remote = (VersionEscaping.unescape(parts[1]), String(parts[2]))
      case "follows": follows = Int(parts[1])
      case "check" where line == lines.last: break
      case "check": return nil  // only the last line checks the others
      default: break
      }
    }
    guard let date, let origin, let resolved, let size, let root else { return nil }
    version = PackageVersion(
      id: id, date: date.date, origin: origin, isResolved: resolved, size: size, conflictPaths: conflicts,
      unkeptPaths: unkept, remote: remote?.0)
    remoteTree = remote?.1
    self.follows = follows
    (rootTree, rootPermissions, rootTime) = root
  }
}

/// What is wrong with a version or pending record that does not parse, in words for `docpkg check`.
enum RecordDamage {
  /// The reason `data` is not a whole record that starts with `header` and has the `required`
  /// keys (checked only after its parser refused it).
  static func reason(_ data: Data, header: String, required: [String]) -> String {
    if data.isEmpty { return "it is empty" }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    if lines.first.map(String.init) != header { return "it does not start with '\(header)'" }
    if data.last != 10 { return "it is cut short (its last line is incomplete)" }
    if !VersionRecord.checkHolds(data) { return "its lines do not match its check (changed after it was written)" }
    let keys = Set(lines.dropFirst().map { String($0.prefix { $0 != " " }) })
    if let missing = required.first(where: { !keys.contains($0) }) { return "it has no '\(missing)' line" }
    return "a line of it is malformed"
  }
}

/// Percent-escaping of the bytes a record's space-separated fields cannot hold (also the remote tree
/// objects of DocumentSync: one escaping for every line format).
package enum VersionEscaping {
  /// The space-separated fields of a record line. `Substring.split(separator: " ")` splits at Characters, and a
  /// space followed by a combining mark is one Character: a field beginning with one (a name such as
  /// "\u{301}x", a link's destination) would stay joined to the field before it, and the line would not read.
  /// Split at the bytes, one pass, no copy: a tree object's listing parses a line per entry.
  package static func fields(_ line: Substring) -> [Substring] {
    var fields: [Substring] = []
    fields.reserveCapacity(8)
    let bytes = line.utf8
    var start = bytes.startIndex
    var index = start
    while index < bytes.endIndex {
      if bytes[index] == 0x20 {
        fields.append(line[start..<index])
        start = bytes.index(after: index)
      }
      index = bytes.index(after: index)
    }
    fields.append(line[start...])
    return fields
  }

  package static func escape(_ text: String) -> String {
    if text.isEmpty { return "%" }  // an empty field would shift the columns
    var out: [UInt8] = []
    let digits = Array("0123456789ABCDEF".utf8)
    for byte in text.utf8 {
      if byte <= 0x20 || byte == 0x25 || byte == 0x7f {
        out += [0x25, digits[Int(byte >> 4)], digits[Int(byte & 15)]]
      } else {
        out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  package static func unescape(_ text: Substring) -> String {
    if text == "%" { return "" }
    if !text.utf8.contains(0x25) { return String(text) }  // nothing escaped: most names
    var out: [UInt8] = []
    var bytes = Array(text.utf8)[...]
    while let byte = bytes.popFirst() {
      if byte == 0x25, bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
      {
        out.append(value)
        bytes = bytes.dropFirst(2)
      } else {
        out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}

extension FileTime {
  var encoded: String {
    let nanos = String(nanoseconds)
    return "\(seconds).\(String(repeating: "0", count: max(0, 9 - nanos.count)))\(nanos)"
  }

  init?(encoded: Substring) {
    guard let dot = encoded.utf8.firstIndex(of: 0x2E), let seconds = Int64(encoded[..<dot]),
      let nanos = Int32(encoded[encoded.utf8.index(after: dot)...])
    else { return nil }
    self.init(seconds: seconds, nanoseconds: nanos)
  }
}
