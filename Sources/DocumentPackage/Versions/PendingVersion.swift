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
/// Text: `docpkg-pending 3`, then lines each ending with a check of the rest of it and of its
/// number, the last `count N` (``NumberedLines``): a record damaged on disk or edited by hand (a
/// `start` moved later would let a write after the save into the version), or with a whole line
/// removed, is not believed, and `check` reports it. A record of the release before
/// (`docpkg-pending 2`: each line checked alone, no count) is still read as it was. One an earlier
/// release wrote (`docpkg-pending 1`, no checks) is not believed: nothing tells it whole, so it is
/// damage, reported with its replaced files left in place.
/// The lines: `start SECONDS.NANOS`, `root MODE MTIME`, `changed PATH` (the
/// replaced subtree relative to the package, `%` for the whole package), `replaced
/// kept|lost|absent` (see ``Replaced``), `container MTIME CTIME MTIME CTIME` (the times of
/// `changed`'s parent directory just before and just after the save's rename in it, the last two
/// `-` when recovery wrote the record; see ``ContainerTimes``), `keep N` when the save's
/// policy keeps the last N versions, and one `seen DEVICE INODE MTIME CTIME` line for each entry
/// whose status the save saw just before its own link or rename moved its change time, when that
/// change time was after an earlier pending version's capture (see ``Seen``), and `root-listing N NAME…`, the
/// names in the package's root just before the capture (see ``rootListing``).
struct PendingVersion {
  /// The status of a package entry just before the save linked it into its new state, or moved it
  /// into the store: that link or rename moves the entry's change time, which would hide a change
  /// another program made after an earlier pending version's capture *T*. Recorded only when its
  /// change time was already after the oldest *T* then pending; ``PendingStateWalk`` judges it as
  /// it judges the entry's status now.
  struct Seen: Equatable {
    var device: UInt64
    var inode: UInt64
    var modification: FileTime
    var change: FileTime

    init(_ status: FileStatus) {
      device = status.device
      inode = status.inode
      modification = status.modificationTime
      change = status.changeTime
    }

    init?(_ parts: [Substring]) {
      guard parts.count == 4, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
        let modification = FileTime(encoded: parts[2]), let change = FileTime(encoded: parts[3])
      else { return nil }
      (self.device, self.inode, self.modification, self.change) = (device, inode, modification, change)
    }

    var encoded: String { "\(device) \(inode) \(modification.encoded) \(change.encoded)" }
  }

  /// The modification and change times of the directory a save renamed its entry in, just before
  /// and just after that rename: what lets the settle tell that no other program changed the
  /// directory's entries since (see ``PendingStateWalk``).
  struct ContainerTimes: Equatable {
    typealias Times = (modification: FileTime, change: FileTime)
    /// Modification and change time before the rename.
    var before: Times
    /// Modification and change time after the rename (and the directory's fsync); nil in a record
    /// recovery completed for a save killed after its rename (its capture marker held only the
    /// times before, ``SaveIntent``): what happened to the directory after the rename is not known.
    var after: Times?

    init(before: FileStatus, after: FileStatus?) {
      self.before = (before.modificationTime, before.changeTime)
      self.after = after.map { ($0.modificationTime, $0.changeTime) }
    }

    init(before: Times, after: Times?) {
      self.before = before
      self.after = after
    }

    /// Parses `MTIME CTIME MTIME CTIME`, the last two `-` when the times after are not known (an
    /// earlier release reads such a line as no times at all: it then trusts nothing of the directory).
    init?(_ parts: [Substring]) {
      guard parts.count == 4, let modification = FileTime(encoded: parts[0]), let change = FileTime(encoded: parts[1])
      else { return nil }
      before = (modification, change)
      if parts[2] == "-" && parts[3] == "-" {
        after = nil
      } else {
        guard let modification = FileTime(encoded: parts[2]), let change = FileTime(encoded: parts[3]) else {
          return nil
        }
        after = (modification, change)
      }
    }

    var encoded: String {
      let after = self.after.map { "\($0.modification.encoded) \($0.change.encoded)" } ?? "- -"
      return "\(before.modification.encoded) \(before.change.encoded) \(after)"
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.before == rhs.before && lhs.after?.modification == rhs.after?.modification
        && lhs.after?.change == rhs.after?.change
    }
  }

  /// What the save left of the previous state at `changed`.
  enum Replaced: String {
    /// The replaced subtree is in `pending/ID.old`.
    case kept
    /// The replaced subtree could not be moved into the store: the version names it as not kept.
    case lost
    /// The save added `changed` (a root entry renamed in with `RENAME_NOREPLACE`): the previous
    /// state had nothing there, so the version simply has no entry at that path. (An older
    /// release reads the word as `lost`: it names the path as not kept, never keeps wrong bytes.)
    case absent
  }

  var id: Int
  /// The time of the capture, from the file system's own clock (a file made in the store).
  var start: FileTime
  var rootPermissions: FilePermissions
  var rootTime: FileTime
  /// The replaced subtree, relative to the package ("" for the whole package).
  var changed: String
  /// What the save left of the previous state at `changed`.
  var replaced: Replaced
  /// The number of versions the save's policy keeps (nil: all).
  var keepLast: Int?
  /// The times of `changed`'s parent directory around the save's rename (nil: not known, as for
  /// a whole-package save).
  var containerTimes: ContainerTimes?
  /// Entries the save linked or moved whose change times were after an earlier pending capture.
  var seen: [Seen]
  /// The names in the package's root just before the capture, sorted, without the save's own temporary
  /// entries (`.NAME.docpkg-…`): an entry removed from the root since leaves no other trace, and an entry made
  /// since (another program writing beside the document right after a save) changes the root's times as a
  /// removal would. With this list, the settle tells the one from the other (``PendingStateWalk``). Nil for a
  /// whole-package save, a root of more than ``rootListingLimit`` entries, or one that could not be listed.
  var rootListing: [String]?

  /// The most entries of the package's root a save lists into its record (``rootListing``).
  static let rootListingLimit = 4096

  init(
    id: Int, start: FileTime, rootPermissions: FilePermissions, rootTime: FileTime, changed: String,
    replaced: Replaced, keepLast: Int?, containerTimes: ContainerTimes? = nil, seen: [Seen] = [],
    rootListing: [String]? = nil
  ) {
    self.rootListing = rootListing
    self.containerTimes = containerTimes
    self.seen = seen
    self.id = id
    self.start = start
    self.rootPermissions = rootPermissions
    self.rootTime = rootTime
    self.changed = changed
    self.replaced = replaced
    self.keepLast = keepLast
  }

  /// The first line of a record this release writes (its lines numbered and counted), of the
  /// release before's (each line checked alone: still read), and of an earlier one's (not read: its
  /// lines carry no check).
  static let header = "docpkg-pending 3"
  static let previousHeader = "docpkg-pending 2"
  static let uncheckedHeader = "docpkg-pending 1"

  func encoded() -> Data {
    var lines = ["start \(start.encoded)", "root \(String(rootPermissions.rawValue, radix: 8)) \(rootTime.encoded)"]
    lines.append("changed \(VersionEscaping.escape(changed))")
    lines.append("replaced \(replaced.rawValue)")
    if let containerTimes { lines.append("container \(containerTimes.encoded)") }
    if let keepLast { lines.append("keep \(keepLast)") }
    for entry in seen { lines.append("seen \(entry.encoded)") }
    if let rootListing { lines.append(Self.rootListingLine(rootListing)) }
    return Data((Self.header + "\n" + NumberedLines.counted(lines)).utf8)
  }

  /// The lines of a record after its header, without their checks (and its count); nil when it is
  /// cut short, not a pending record (an earlier release's without checks included), a line does
  /// not match its check, or a line is missing (``damage(_:)`` says which).
  static func verifiedLines(_ data: Data) -> [Substring]? {
    switch read(data) {
    case .lines(let lines, _): lines
    case .damaged: nil
    }
  }

  /// Why the lines of `data` are not believed; nil when they are (the record may still lack a key).
  static func damage(_ data: Data) -> String? {
    if case .damaged(let why) = read(data) { return why }
    return nil
  }

  private static func read(_ data: Data) -> NumberedLines.Reading {
    // Every record ends with a newline: one without was cut.
    guard data.last == 10 else { return .damaged("it is cut short (its last line is incomplete)") }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    switch lines.first {
    case Substring(header)?:
      let read = NumberedLines.read(lines.dropFirst(), countedLast: true)
      if case .lines(_, let counts) = read, counts != 1 { return .damaged("its line count is repeated") }
      return read
    case Substring(previousHeader)?:
      var verified: [Substring] = []
      for line in lines.dropFirst() {
        guard let rest = HashCache.verified(line) else {
          return .damaged("a line of it does not match its check (damaged or edited)")
        }
        verified.append(rest)
      }
      return .lines(verified, counts: 0)
    default:
      return .damaged("it does not start with '\(header)'")
    }
  }

  /// Parses a pending record; `nil` for a torn, edited or foreign file.
  init?(id: Int, data: Data) {
    guard let lines = Self.verifiedLines(data) else { return nil }
    var start: FileTime?, root: (FilePermissions, FileTime)?, changed: String?, replaced: Replaced?
    var keepLast: Int?
    var containerTimes: ContainerTimes?
    var seen: [Seen] = []
    var rootListing: [String]?
    for line in lines {
      let parts = VersionEscaping.fields(line)
      guard parts.count >= 2 else { return nil }
      switch parts[0] {
      case "start": start = FileTime(encoded: parts[1])
      case "root":
        guard parts.count == 3, let mode = CModeT(parts[1], radix: 8), let time = FileTime(encoded: parts[2])
        else { return nil }
        root = (FilePermissions(rawValue: mode), time)
      case "changed": changed = VersionEscaping.unescape(parts[1])
      case "replaced": replaced = Replaced(rawValue: String(parts[1])) ?? .lost
      case "keep": keepLast = Int(parts[1])
      case "container": containerTimes = ContainerTimes(Array(parts.dropFirst()))
      case "seen":
        guard let entry = Seen(Array(parts.dropFirst())) else { return nil }
        seen.append(entry)
      case "root-listing":
        guard let names = Self.rootListing(parts) else { return nil }
        rootListing = names
      default: break
      }
    }
    guard let start, let root, let changed, let replaced else { return nil }
    self.init(
      id: id, start: start, rootPermissions: root.0, rootTime: root.1, changed: changed, replaced: replaced,
      keepLast: keepLast, containerTimes: containerTimes, seen: seen, rootListing: rootListing)
  }

  /// The line `root-listing N NAME…` (a capture marker holds it too, ``SaveIntent``).
  static func rootListingLine(_ names: [String]) -> String {
    (["root-listing", String(names.count)] + names.map(VersionEscaping.escape)).joined(separator: " ")
  }

  /// The names of a `root-listing` line split into fields; nil when their count is not the one it says.
  static func rootListing(_ parts: [Substring]) -> [String]? {
    guard parts.count >= 2, let count = Int(parts[1]), count == parts.count - 2 else { return nil }
    return parts.dropFirst(2).map(VersionEscaping.unescape)
  }

  /// The parent directory of `changed` ("" for a top-level entry; nil for the whole package).
  var container: String? { Self.container(of: changed) }

  /// The parent directory of the package's entry `changed` ("" for a top-level entry; nil for the whole package).
  static func container(of changed: String) -> String? {
    guard !changed.isEmpty else { return nil }
    guard let slash = changed.lastIndex(of: "/") else { return "" }
    return String(changed[..<slash])
  }
}
