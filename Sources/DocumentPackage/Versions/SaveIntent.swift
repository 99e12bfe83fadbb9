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
/// name until the swap; `new removal` for a save that built nothing and renames the removed entry
/// out to the temporary name, ``EntryRemoval``: whatever is there is the replaced entry), `root MODE MTIME`, `changed PATH` (as in a pending record), `replaced
/// kept|absent` (`absent`: the save adds `changed`), and `keep N` as in a pending record. A save
/// that renames its entry into a directory of the package appends, just before the rename,
/// `before-swap START MTIME CTIME` (``BeforeSwap``): what recovery needs to tell that the entry a
/// killed save added was its own (see ``PendingStateWalk``).
struct SaveIntent: Equatable {
  /// Appended to the marker just before the swap: the capture time and the times of the directory
  /// the save renames its entry in (``PendingVersion/ContainerTimes/before``).
  struct BeforeSwap: Equatable {
    /// The capture time: the marker's modification time before this line moved it.
    var start: FileTime
    var modification: FileTime
    var change: FileTime

    /// The line appended to the marker (one `write`: a kill leaves all of it or none).
    var line: Data {
      Data("before-swap \(start.encoded) \(modification.encoded) \(change.encoded)\n".utf8)
    }
  }

  /// The device and inode of the tree the save built; empty for a removal (`new removal`), which
  /// built none.
  var newTree: [UInt64]
  var rootPermissions: FilePermissions
  var rootTime: FileTime
  /// The replaced (or added) entry, relative to the package ("" for the whole package).
  var changed: String
  /// `.kept` when the save exchanges an entry, `.absent` when it adds one.
  var replaced: PendingVersion.Replaced
  var keepLast: Int?
  /// The line a save appends just before its swap (nil: it was killed before, or renames nothing
  /// into a directory of the package).
  var beforeSwap: BeforeSwap?

  func encoded() -> Data {
    let built = newTree.isEmpty ? "removal" : newTree.map(String.init).joined(separator: " ")
    var text = "docpkg-save-intent 1\nnew \(built)\n"
    text += "root \(String(rootPermissions.rawValue, radix: 8)) \(rootTime.encoded)\n"
    text += "changed \(VersionEscaping.escape(changed))\n"
    text += "replaced \(replaced.rawValue)\n"
    if let keepLast { text += "keep \(keepLast)\n" }
    return Data(text.utf8) + (beforeSwap?.line ?? Data())
  }

  /// Parses a marker; `nil` for an empty (an earlier release's), torn or foreign one.
  init?(_ data: Data) {
    guard data.last == 10 else { return nil }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard lines.first == "docpkg-save-intent 1" else { return nil }
    var newTree: [UInt64]?, root: (FilePermissions, FileTime)?, changed: String?
    var replaced: PendingVersion.Replaced?, keepLast: Int?, beforeSwap: BeforeSwap?
    for line in lines.dropFirst() {
      let parts = VersionEscaping.fields(line)
      guard parts.count >= 2 else { return nil }
      switch parts[0] {
      case "new" where parts.count == 2 && parts[1] == "removal":
        newTree = []
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
      case "before-swap":
        let times = parts.dropFirst().compactMap { FileTime(encoded: $0) }
        guard times.count == 3 else { return nil }
        beforeSwap = BeforeSwap(start: times[0], modification: times[1], change: times[2])
      default: break
      }
    }
    guard let newTree, let root, let changed, let replaced else { return nil }
    self.init(
      newTree: newTree, rootPermissions: root.0, rootTime: root.1, changed: changed, replaced: replaced,
      keepLast: keepLast)
    self.beforeSwap = beforeSwap
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

  /// The pending record the save would have written. Its capture time is the one in the
  /// before-swap line, else `markerTime` (the marker's modification time, which only that line's
  /// append moves). Of the container's times only those before the rename are known (from that
  /// line): the settle then trusts nothing of that directory's entries it cannot see, apart from
  /// the one the save added (see ``PendingStateWalk``).
  func record(id: Int, markerTime: FileTime) -> PendingVersion {
    PendingVersion(
      id: id, start: beforeSwap?.start ?? markerTime, rootPermissions: rootPermissions, rootTime: rootTime,
      changed: changed, replaced: replaced, keepLast: keepLast,
      containerTimes: beforeSwap.map {
        PendingVersion.ContainerTimes(before: ($0.modification, $0.change), after: nil)
      })
  }
}
