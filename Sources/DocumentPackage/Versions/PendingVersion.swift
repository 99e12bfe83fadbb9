import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A version a save recorded without copying it yet (`pending/ID` in the store): the previous
/// state is "the subtree `changed` as it was, now moved to `pending/ID.old`, and everything else
/// as the package was at `start`". ``VersionStore/settlePendingVersions()`` turns it into a
/// version (see ``DeferredKeeping``).
///
/// Text: `docpkg-pending 1`, `start SECONDS.NANOS`, `root MODE MTIME`, `changed PATH` (the
/// replaced subtree relative to the package, `%` for the whole package), `replaced kept|lost`
/// (`lost` when the replaced subtree could not be moved into the store), and `keep N` when the
/// save's policy keeps the last N versions.
struct PendingVersion {
  var id: Int
  /// The time of the capture, from the file system's own clock (a file made in the store).
  var start: FileTime
  var rootPermissions: FilePermissions
  var rootTime: FileTime
  /// The replaced subtree, relative to the package ("" for the whole package).
  var changed: String
  /// Whether the replaced subtree is in `pending/ID.old`.
  var replacedKept: Bool
  /// The number of versions the save's policy keeps (nil: all).
  var keepLast: Int?

  init(
    id: Int, start: FileTime, rootPermissions: FilePermissions, rootTime: FileTime, changed: String,
    replacedKept: Bool, keepLast: Int?
  ) {
    self.id = id
    self.start = start
    self.rootPermissions = rootPermissions
    self.rootTime = rootTime
    self.changed = changed
    self.replacedKept = replacedKept
    self.keepLast = keepLast
  }

  func encoded() -> Data {
    var text = "docpkg-pending 1\nstart \(start.encoded)\n"
    text += "root \(String(rootPermissions.rawValue, radix: 8)) \(rootTime.encoded)\n"
    text += "changed \(VersionEscaping.escape(changed))\n"
    text += "replaced \(replacedKept ? "kept" : "lost")\n"
    if let keepLast { text += "keep \(keepLast)\n" }
    return Data(text.utf8)
  }

  /// Parses a pending record; `nil` for a torn or foreign file.
  init?(id: Int, data: Data) {
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard lines.first == "docpkg-pending 1" else { return nil }
    var start: FileTime?, root: (FilePermissions, FileTime)?, changed: String?, kept: Bool?
    var keepLast: Int?
    for line in lines.dropFirst() {
      let parts = line.split(separator: " ", omittingEmptySubsequences: false)
      guard parts.count >= 2 else { return nil }
      switch parts[0] {
      case "start": start = FileTime(encoded: parts[1])
      case "root":
        guard parts.count == 3, let mode = CModeT(parts[1], radix: 8), let time = FileTime(encoded: parts[2])
        else { return nil }
        root = (FilePermissions(rawValue: mode), time)
      case "changed": changed = VersionEscaping.unescape(parts[1])
      case "replaced": kept = parts[1] == "kept"
      case "keep": keepLast = Int(parts[1])
      default: break
      }
    }
    guard let start, let root, let changed, let kept else { return nil }
    self.init(
      id: id, start: start, rootPermissions: root.0, rootTime: root.1, changed: changed, replacedKept: kept,
      keepLast: keepLast)
  }

  /// The parent directory of `changed` ("" for a top-level entry; nil for the whole package).
  var container: String? {
    guard !changed.isEmpty else { return nil }
    guard let slash = changed.lastIndex(of: "/") else { return "" }
    return String(changed[..<slash])
  }
}
