import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a deferred save is about to swap, written into its capture marker (`pending/ID.start`)
/// before the swap: everything its pending record (``PendingVersion``) will say but the capture
/// time (the marker's own modification time) and the container's times, plus the identity of the
/// new tree it built. A save killed after its swap and before its record leaves the replaced
/// subtree beside the package; with this, recovery tells that subtree from a new tree never
/// swapped in, and completes the record instead of removing the only copy of what the pending
/// versions before it still read (``DeferredKeeping``).
///
/// Text: `docpkg-save-intent 1`, `new DEVICE INODE` (the tree the save built, at the temporary
/// name until the swap), `root MODE MTIME`, `changed PATH` (as in a pending record), `replaced
/// kept|absent` (`absent`: the save adds `changed`), and `keep N` as in a pending record.
struct SaveIntent: Equatable {
  /// The device and inode of the tree the save built.
  var newTree: [UInt64]
  var rootPermissions: FilePermissions
  var rootTime: FileTime
  /// The replaced (or added) entry, relative to the package ("" for the whole package).
  var changed: String
  /// `.kept` when the save exchanges an entry, `.absent` when it adds one.
  var replaced: PendingVersion.Replaced
  var keepLast: Int?

  func encoded() -> Data {
    var text = "docpkg-save-intent 1\nnew \(newTree.map(String.init).joined(separator: " "))\n"
    text += "root \(String(rootPermissions.rawValue, radix: 8)) \(rootTime.encoded)\n"
    text += "changed \(VersionEscaping.escape(changed))\n"
    text += "replaced \(replaced.rawValue)\n"
    if let keepLast { text += "keep \(keepLast)\n" }
    return Data(text.utf8)
  }

  /// Parses a marker; `nil` for an empty (an earlier release's), torn or foreign one.
  init?(_ data: Data) {
    guard data.last == 10 else { return nil }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard lines.first == "docpkg-save-intent 1" else { return nil }
    var newTree: [UInt64]?, root: (FilePermissions, FileTime)?, changed: String?
    var replaced: PendingVersion.Replaced?, keepLast: Int?
    for line in lines.dropFirst() {
      let parts = VersionEscaping.fields(line)
      guard parts.count >= 2 else { return nil }
      switch parts[0] {
      case "new":
        let numbers = parts.dropFirst().compactMap { UInt64($0) }
        guard numbers.count == 2 else { return nil }
        newTree = numbers
      case "root":
        guard parts.count == 3, let mode = CModeT(parts[1], radix: 8), let time = FileTime(encoded: parts[2])
        else { return nil }
        root = (FilePermissions(rawValue: mode), time)
      case "changed": changed = VersionEscaping.unescape(parts[1])
      case "replaced":
        guard let value = PendingVersion.Replaced(rawValue: String(parts[1])), value != .lost else { return nil }
        replaced = value
      case "keep": keepLast = Int(parts[1])
      default: break
      }
    }
    guard let newTree, let root, let changed, let replaced else { return nil }
    self.init(
      newTree: newTree, rootPermissions: root.0, rootTime: root.1, changed: changed, replaced: replaced,
      keepLast: keepLast)
  }

  init(
    newTree: [UInt64], rootPermissions: FilePermissions, rootTime: FileTime, changed: String,
    replaced: PendingVersion.Replaced, keepLast: Int?
  ) {
    self.newTree = newTree
    self.rootPermissions = rootPermissions
    self.rootTime = rootTime
    self.changed = changed
    self.replaced = replaced
    self.keepLast = keepLast
  }

  /// The pending record the save would have written, captured at `start` (the container's times
  /// are not known: the settle then trusts nothing of that directory's entries it cannot see).
  func record(id: Int, start: FileTime) -> PendingVersion {
    PendingVersion(
      id: id, start: start, rootPermissions: rootPermissions, rootTime: rootTime, changed: changed,
      replaced: replaced, keepLast: keepLast)
  }
}
