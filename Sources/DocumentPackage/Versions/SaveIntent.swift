import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a deferred save is about to swap, written into its capture marker (`pending/ID.start`)
/// before the swap: everything its pending record (``PendingVersion``) will say but the
/// container's times after the rename, plus the identity of the new tree it built. A save killed
/// after its swap and before its record leaves the replaced subtree beside the package; with this,
/// recovery tells that subtree from a new tree never swapped in, and completes the record instead
/// of removing the only copy of what the pending versions before it still read (``DeferredKeeping``).
///
/// Text: `docpkg-save-intent 3`, then lines each ending with a check of the rest of it and of its
/// number, as a pending record's (``NumberedLines``), each group of lines written at once ending with
/// `count N`: `new DEVICE INODE` (the tree the save built, at the
/// temporary name until the swap; `new removal` for a save that built nothing and renames the
/// removed entry out to the temporary name, ``EntryRemoval``: whatever is there is the replaced
/// entry), `root MODE MTIME`, `changed PATH` (as in a pending record), `replaced kept|absent`
/// (`absent`: the save adds `changed`), `keep N` and one `seen …` line per entry as in a pending
/// record (``PendingVersion/Seen``: what the save saw before its own links, which a record completed
/// without them would lose), `root-listing N NAME…` as in a pending record (``PendingVersion/rootListing``), then
/// `count`. Then `start SECONDS.NANOS` and its `count`, the capture
/// time: the marker's modification time once the lines above were written, appended in one `write`
/// before the save goes on, so a marker without it belongs to a save that never swapped. A save that
/// renames its entry into a directory of the package appends, just before the rename,
/// `before-swap MTIME CTIME` (``BeforeSwap``) and its `count`: what recovery needs to tell that the
/// entry a killed save added was its own (see ``PendingStateWalk``); once the rename is durable, it appends
/// `after-swap MTIME CTIME` and its `count`, the directory's times then, which keep the chain of our renames in it
/// whole when the save is killed before its record (else recovery reads them from the directory where it can,
/// ``DeferredKeeping/completeInterruptedSaves(_:parentFD:)``). A save that fails after its
/// rename and renames back appends, once back, `undone MTIME CTIME DEVICE INODE MTIME CTIME` (``Undone``)
/// and its `count`: the directory's times after both renames, which make the swap and its undoing a link
/// in the chain of our renames in that directory (``UndoneSwap``), and the entry's status then (the last
/// four `-` for an added entry renamed out again). A line removed from any group
/// is caught (``NumberedLines``); a whole group removed from the end cannot be told from a save
/// killed before writing it, which is what recovery then takes it for (the swap not done, or no
/// times of the directory: either way the settle names what it cannot prove, never keeps more).
/// A marker of the release before (`docpkg-save-intent 2`: each line checked alone, no counts) is
/// still read as it was.
///
/// A marker is read by recovery, for a save killed between its swap and its record (a recorded save's
/// marker is removed unread), and by the settle, for a save that swapped back (`ID.abandoned` with its
/// `undone` line, ``UndoneSwap``). One whose lines do not match their checks (damaged,
/// or edited by hand: a `start` moved later would let writes after the save into the version), or
/// that an earlier release wrote without checks (`docpkg-save-intent 1`), is not believed
/// (``Reading/damaged(_:)``).
struct SaveIntent: Equatable {
  /// Appended to the marker just before the swap: the times of the directory the save renames its
  /// entry in (``PendingVersion/ContainerTimes/before``).
  struct BeforeSwap: Equatable {
    var modification: FileTime
    var change: FileTime

    var text: String { "before-swap \(modification.encoded) \(change.encoded)" }

    /// The line as the release before wrote it (for a marker with no intent, whose lines are not read).
    var line: Data { Data((HashCache.checked(text) + "\n").utf8) }
  }

  /// Appended to the marker once the rename is durable: the times of the directory the save renamed its entry
  /// in (``PendingVersion/ContainerTimes/after``).
  struct AfterSwap: Equatable {
    var modification: FileTime
    var change: FileTime

    var text: String { "after-swap \(modification.encoded) \(change.encoded)" }
  }

  /// Appended to the marker of a save that swapped back (``UndoneSwap``): the times of the directory
  /// it renamed its entry in, once its entry was renamed back, and the status of that entry then.
  struct Undone: Equatable {
    var modification: FileTime
    var change: FileTime
    var entry: PendingVersion.Seen?

    var text: String { "undone \(modification.encoded) \(change.encoded) \(entry?.encoded ?? "- - - -")" }
  }

  /// What reading a marker gave.
  enum Reading: Equatable {
    /// A whole marker whose lines match their checks.
    case intent(SaveIntent)
    /// An empty marker: a save that wrote no intent (it built no tree recovery could tell), or was
    /// killed before writing it.
    case empty
    /// Anything else, with the reason in words: not believed.
    case damaged(String)
  }

  /// The first line of a marker this release writes, of the release before's (lines checked alone,
  /// still read), and of an earlier one's (no checks).
  static let header = "docpkg-save-intent 3"
  static let previousHeader = "docpkg-save-intent 2"
  static let uncheckedHeader = "docpkg-save-intent 1"

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
  /// What the save saw of the entries it linked or replaces (see ``PendingVersion/Seen``).
  var seen: [PendingVersion.Seen]
  /// The names in the package's root just before the capture (see ``PendingVersion/rootListing``).
  var rootListing: [String]?
  /// The capture time (nil: the save was killed before its capture was complete, so before its swap).
  var start: FileTime?
  /// The line a save appends just before its swap (nil: it was killed before, or renames nothing
  /// into a directory of the package).
  var beforeSwap: BeforeSwap?
  /// The line a save appends once its rename is durable (nil: it was killed before, or renames nothing into a
  /// directory of the package).
  var afterSwap: AfterSwap?
  /// The line a save that swapped back appends (nil: it did not, or was killed before).
  var undone: Undone?

  /// The lines of the intent, before the capture time.
  private var lines: [String] {
    let built = newTree.isEmpty ? "removal" : newTree.map(String.init).joined(separator: " ")
    var lines = ["new \(built)", "root \(String(rootPermissions.rawValue, radix: 8)) \(rootTime.encoded)"]
    lines.append("changed \(VersionEscaping.escape(changed))")
    lines.append("replaced \(replaced.rawValue)")
    if let keepLast { lines.append("keep \(keepLast)") }
    for entry in seen { lines.append("seen \(entry.encoded)") }
    if let rootListing { lines.append(PendingVersion.rootListingLine(rootListing)) }
    return lines
  }

  /// The marker's first group of lines, and those of its capture time and before-swap line when set
  /// (``startLines(_:)``, ``beforeSwapLines(_:)``).
  func encoded() -> Data {
    Data((Self.header + "\n" + NumberedLines.counted(lines)).utf8) + (start.map(startLines) ?? Data())
      + (beforeSwap.map(beforeSwapLines) ?? Data()) + (afterSwap.map(afterSwapLines) ?? Data())
      + (undone.map(undoneLines) ?? Data())
  }

  /// The lines that complete the capture: its time, after the first group (one `write`).
  func startLines(_ start: FileTime) -> Data {
    Data(NumberedLines.counted(["start \(start.encoded)"], from: lines.count + 2).utf8)
  }

  /// The lines appended just before the swap, after the capture time's (one `write`).
  func beforeSwapLines(_ beforeSwap: BeforeSwap) -> Data {
    Data(NumberedLines.counted([beforeSwap.text], from: lines.count + 4).utf8)
  }

  /// The lines appended once the rename is durable, after the before-swap line's (one `write`).
  func afterSwapLines(_ afterSwap: AfterSwap) -> Data {
    Data(NumberedLines.counted([afterSwap.text], from: lines.count + 6).utf8)
  }

  /// The lines appended once the swap is undone, after the before-swap line's, and the after-swap line's when
  /// ``afterSwap`` says it was written (one `write`).
  func undoneLines(_ undone: Undone) -> Data {
    Data(NumberedLines.counted([undone.text], from: lines.count + (afterSwap == nil ? 6 : 8)).utf8)
  }

  /// Parses a marker; `nil` unless it is whole and its lines match their checks (see ``read(_:)``).
  init?(_ data: Data) {
    guard case .intent(let intent) = Self.read(data) else { return nil }
    self = intent
  }

  /// Reads a marker: its intent, nothing (empty), or why it is not believed.
  static func read(_ data: Data) -> Reading {
    if data.isEmpty { return .empty }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    if lines.first.map(String.init) == uncheckedHeader {
      return .damaged("an earlier release wrote it ('\(uncheckedHeader)'), and its lines carry no check")
    }
    let first = lines.first.map(String.init)
    guard first == header || first == previousHeader else {
      return .damaged("it does not start with '\(header)'")
    }
    guard data.last == 10 else { return .damaged("it is cut short (its last line is incomplete)") }
    var verified: [Substring] = []
    if first == header {
      switch NumberedLines.read(lines.dropFirst(), countedLast: true) {
      case .damaged(let why): return .damaged(why)
      case .lines(let read, _): verified = read
      }
    } else {
      for line in lines.dropFirst() {
        guard let rest = HashCache.verified(line) else {
          return .damaged("a line of it does not match its check (damaged or edited)")
        }
        verified.append(rest)
      }
    }
    guard let intent = SaveIntent(verified: verified) else { return .damaged("a line of it is malformed") }
    return .intent(intent)
  }

  /// Parses the lines of a marker after its header, their checks verified.
  private init?(verified lines: [Substring]) {
    var newTree: [UInt64]?, root: (FilePermissions, FileTime)?, changed: String?
    var replaced: PendingVersion.Replaced?, keepLast: Int?, beforeSwap: BeforeSwap?, start: FileTime?
    var afterSwap: AfterSwap?, undone: Undone?
    var seen: [PendingVersion.Seen] = []
    var rootListing: [String]?
    for line in lines {
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
      case "seen":
        guard let entry = PendingVersion.Seen(Array(parts.dropFirst())) else { return nil }
        seen.append(entry)
      case "root-listing":
        guard let names = PendingVersion.rootListing(parts) else { return nil }
        rootListing = names
      case "start":
        guard parts.count == 2, let time = FileTime(encoded: parts[1]) else { return nil }
        start = time
      case "before-swap":
        let times = parts.dropFirst().compactMap { FileTime(encoded: $0) }
        guard times.count == 2 else { return nil }
        beforeSwap = BeforeSwap(modification: times[0], change: times[1])
      case "after-swap":
        let times = parts.dropFirst().compactMap { FileTime(encoded: $0) }
        guard times.count == 2 else { return nil }
        afterSwap = AfterSwap(modification: times[0], change: times[1])
      case "undone":
        guard parts.count == 7, let modification = FileTime(encoded: parts[1]),
          let change = FileTime(encoded: parts[2])
        else { return nil }
        let entry = PendingVersion.Seen(Array(parts[3...]))
        guard entry != nil || parts[3...].allSatisfy({ $0 == "-" }) else { return nil }
        undone = Undone(modification: modification, change: change, entry: entry)
      default: break
      }
    }
    guard let newTree, let root, let changed, let replaced else { return nil }
    // Each group follows the one before it (as they are numbered when written).
    guard beforeSwap == nil || start != nil, afterSwap == nil || beforeSwap != nil, undone == nil || beforeSwap != nil
    else { return nil }
    self.init(
      newTree: newTree, rootPermissions: root.0, rootTime: root.1, changed: changed, replaced: replaced,
      keepLast: keepLast, seen: seen, rootListing: rootListing)
    self.start = start
    self.beforeSwap = beforeSwap
    self.afterSwap = afterSwap
    self.undone = undone
  }

  init(
    newTree: [UInt64], rootPermissions: FilePermissions, rootTime: FileTime, changed: String,
    replaced: PendingVersion.Replaced, keepLast: Int?, seen: [PendingVersion.Seen] = [], rootListing: [String]? = nil
  ) {
    self.rootListing = rootListing
    self.newTree = newTree
    self.rootPermissions = rootPermissions
    self.rootTime = rootTime
    self.changed = changed
    self.replaced = replaced
    self.keepLast = keepLast
    self.seen = seen
  }

  /// The swap and its undoing, when the marker says both happened (see ``UndoneSwap``).
  func undoneSwap(id: Int) -> UndoneSwap? {
    guard start != nil, let beforeSwap, let undone, !changed.isEmpty else { return nil }
    return UndoneSwap(
      id: id, changed: changed,
      containerTimes: PendingVersion.ContainerTimes(
        before: (beforeSwap.modification, beforeSwap.change), after: (undone.modification, undone.change)),
      entryAfter: undone.entry, seen: seen)
  }

  /// The pending record the save would have written, or nil when the marker has no capture time
  /// (the save never swapped). Of the container's times those before the rename are known (from the
  /// before-swap line), and those after it when the save wrote them (the after-swap line) or recovery
  /// could tell them (`after`, see ``DeferredKeeping/completeInterruptedSaves(_:parentFD:)``): without them
  /// the settle trusts nothing of that directory's entries it cannot see, apart from the one the save added
  /// (see ``PendingStateWalk``).
  func record(id: Int, after: PendingVersion.ContainerTimes.Times? = nil) -> PendingVersion? {
    guard let start else { return nil }
    return PendingVersion(
      id: id, start: start, rootPermissions: rootPermissions, rootTime: rootTime,
      changed: changed, replaced: replaced, keepLast: keepLast,
      containerTimes: beforeSwap.map {
        PendingVersion.ContainerTimes(
          before: ($0.modification, $0.change), after: afterSwap.map { ($0.modification, $0.change) } ?? after)
      }, seen: seen, rootListing: rootListing)
  }
}
