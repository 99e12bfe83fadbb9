import SystemPackage

extension PackageMonitor {
  /// What a ``PackageMonitor`` reports at once: the changes of one burst, after the debounce delay.
  public struct Event: Sendable, Hashable, Codable {
    /// The changes, package-level ones first, then entries by path.
    public var changes: [Change]
    /// Whether these changes are a save by a ``PackageFile`` in this process (see ``PackageMonitor``,
    /// "Own saves").
    public var isOwnSave: Bool
    /// The package's path on disk after these changes.
    public var packagePath: String
    /// What the monitor saw at each changed path when it compared the burst (`nil`: nothing was
    /// there), so that a document can tell the changes its own save made from a later program's
    /// at the same path (`Document+HeldChanges`). Not encoded.
    var seen: [String: SeenEntry?] = [:]
    /// The entries a save of this process put in place in this burst (paths in the package; `""`
    /// for the package itself): the changes at and below them are that save's, unless another
    /// program changed them in the same burst. Not encoded.
    var ownPlaced: Set<String> = []
    /// What those saves carried from disk into directories their model never listed, so that a
    /// document can tell another program's entry there from the save's (``CarriedEntries``). Not encoded.
    var carried = CarriedEntries()
    /// When the monitor compared the burst (the real-time clock that stamps files' times): its watches on
    /// what the burst's saves put in place were set by then, so a later change there comes in an event of its own.
    /// Not encoded.
    var comparedAt: FileTime?

    private enum CodingKeys: String, CodingKey {
      case changes, isOwnSave, packagePath
    }

    /// Creates an event.
    public init(changes: [Change], isOwnSave: Bool, packagePath: String) {
      self.changes = changes
      self.isOwnSave = isOwnSave
      self.packagePath = packagePath
    }
  }
}

extension PackageMonitor.Event {
  /// This event followed by `later`, as one: both bursts' changes, an own save only if both
  /// were, and the package's path after `later`.
  func followed(by later: Self) -> Self {
    var joined = Self(
      changes: changes + later.changes, isOwnSave: isOwnSave && later.isOwnSave, packagePath: later.packagePath)
    joined.seen = seen.merging(later.seen) { $1 }
    joined.ownPlaced = ownPlaced.union(later.ownPlaced)
    joined.carried = carried.merging(later.carried)
    joined.comparedAt = later.comparedAt ?? comparedAt
    return joined
  }
}

extension PackageMonitor {
  /// An entry as a monitor saw it when it compared a burst: what ``DiskStamp``'s rule compares.
  struct SeenEntry: Hashable, Sendable {
    var kind: NodeKind?
    var inode: UInt64
    var size: Int64
    var modificationTime: FileTime
    var permissions: FilePermissions

    init(kind: NodeKind?, inode: UInt64, size: Int64, modificationTime: FileTime, permissions: FilePermissions) {
      self.kind = kind
      self.inode = inode
      self.size = size
      self.modificationTime = modificationTime
      self.permissions = permissions
    }

    init(_ status: FileStatus) {
      self.init(
        kind: status.kind, inode: status.inode, size: status.size, modificationTime: status.modificationTime,
        permissions: status.permissions)
    }

    /// Whether this is the entry `recorded` describes, unchanged (see `DiskStamp.swift`; a
    /// directory's size and time count when its listing was loaded).
    func isUnchanged(from recorded: FileStatus, listing: Bool) -> Bool {
      guard kind == recorded.kind, inode == recorded.inode, permissions == recorded.permissions else { return false }
      return kind == .directory && !listing
        || (size == recorded.size && modificationTime == recorded.modificationTime)
    }
  }
}
