import SystemPackage

extension PackageDifference {
  /// One changed entry: what it was, what it is, and which of its parts differ.
  public struct Change: Hashable, Sendable {
    /// What happened to the entry, with `git diff --name-status` letters as raw values.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
      /// Only in the new tree (`A`).
      case added = "A"
      /// Only in the old tree (`D`).
      case deleted = "D"
      /// At the same path in both, with different contents, mode, link destination or
      /// (when compared) modification time (`M`).
      case modified = "M"
      /// Moved from ``Change/oldPath`` to ``Change/path``, with the same or similar contents (`R`).
      case renamed = "R"
      /// At the same path in both, of another kind: file, directory or symbolic link (`T`).
      case typeChanged = "T"
    }

    /// Which parts of an entry differ between the old and the new tree.
    public struct Details: OptionSet, Hashable, Sendable {
      /// The bits of the set.
      public let rawValue: UInt8
      /// Creates a set from its bits.
      public init(rawValue: UInt8) { self.rawValue = rawValue }
      /// A file's bytes.
      public static let contents = Details(rawValue: 1 << 0)
      /// The permission bits.
      public static let permissions = Details(rawValue: 1 << 1)
      /// A symbolic link's destination.
      public static let symbolicLinkDestination = Details(rawValue: 1 << 2)
      /// The modification time (compared only when asked).
      public static let modificationTime = Details(rawValue: 1 << 3)
    }

    /// The kind of change.
    public var kind: Kind
    /// The entry's path in the new tree, or in the old tree for a deleted entry. Components are
    /// joined by `/`; empty for the root.
    public var path: String
    /// The entry's path in the old tree, for a renamed entry; `nil` otherwise.
    public var oldPath: String?
    /// The entry in the old tree; `nil` for an added entry.
    public var old: Entry?
    /// The entry in the new tree; `nil` for a deleted entry.
    public var new: Entry?
    /// Which parts differ, for modified and renamed entries; empty otherwise.
    public var details: Details
    /// For a renamed entry, how much of the contents is the same, in percent: 100 for an exact
    /// rename. See ``PackageNode/difference(from:options:)`` for the rule.
    public var similarity: Int?
    /// The line differences of a changed text file, when asked for with
    /// ``PackageDifference/Options/includesTextPatches``; `nil` for binary or large files.
    public var patch: TextPatch?
    /// For a changed container file (such as a zip inside the package) that the
    /// ``PackageDifference/Options/expandingContainers`` hook opened on both sides: the difference
    /// between what is inside.
    public var nested: PackageDifference?

    /// Creates a change.
    public init(
      kind: Kind, path: String, oldPath: String? = nil, old: Entry?, new: Entry?, details: Details = [],
      similarity: Int? = nil, patch: TextPatch? = nil, nested: PackageDifference? = nil
    ) {
      self.kind = kind
      self.path = path
      self.oldPath = oldPath
      self.old = old
      self.new = new
      self.details = details
      self.similarity = similarity
      self.patch = patch
      self.nested = nested
    }
  }

  /// What an entry looked like in one tree.
  public struct Entry: Hashable, Sendable {
    /// File, directory or symbolic link.
    public var kind: NodeKind
    /// The size in bytes (see ``PackageNode/size``).
    public var size: Int64
    /// The permission bits.
    public var permissions: FilePermissions
    /// The modification time, if the node has one.
    public var modificationTime: FileTime?
    /// A symbolic link's destination; `nil` for other kinds.
    public var symbolicLinkDestination: String?
    /// The SHA-256 of a file's contents as 64 lowercase hex digits, when the comparison computed
    /// it (rename detection, large or binary files with patches asked for); `nil` otherwise.
    public var sha256: String?
    /// Whether the file's contents look like text (no NUL byte in the first 8,000 bytes, git's
    /// rule), when the comparison read them; `nil` when it did not.
    public var isText: Bool?

    /// Creates an entry.
    public init(
      kind: NodeKind, size: Int64, permissions: FilePermissions, modificationTime: FileTime? = nil,
      symbolicLinkDestination: String? = nil, sha256: String? = nil, isText: Bool? = nil
    ) {
      self.kind = kind
      self.size = size
      self.permissions = permissions
      self.modificationTime = modificationTime
      self.symbolicLinkDestination = symbolicLinkDestination
      self.sha256 = sha256
      self.isText = isText
    }

    /// The entry as `node` describes it, without reading contents.
    public init(_ node: PackageNode) {
      self.init(
        kind: node.kind, size: node.size, permissions: node.permissions, modificationTime: node.modificationTime,
        symbolicLinkDestination: node.kind == .symlink ? node.symbolicLinkDestination : nil)
    }
  }
}
