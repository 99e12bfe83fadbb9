import SystemPackage

extension PackageDifference {
  /// One changed entry: each case carries exactly what that kind of change has, so a renamed entry always has
  /// its old path and similarity, and an added entry never has an old state.
  ///
  ///     switch change {
  ///     case .added(let path, _, _): print("new: \(path)")
  ///     case .renamed(let from, let to, let similarity, _, _, _, _): print("\(from) → \(to) (\(similarity)%)")
  ///     default: print(change)  // "M Data/notes.txt (contents, permissions)"
  ///     }
  ///
  /// The computed properties (``kind``, ``path``, ``old``, ``new``, ``details``, ``patch``, ``nested``) read the
  /// same payloads without a `switch`.
  public enum Change: Hashable, Sendable {
    /// Only in the new tree (`A`): its path, the entry, and its lines as insertions when patches were asked for
    /// and it is text.
    case added(path: String, Entry, patch: TextPatch?)
    /// Only in the old tree (`D`): its path, the entry, and its lines as deletions when patches were asked for
    /// and it is text.
    case deleted(path: String, Entry, patch: TextPatch?)
    /// At the same path in both, with different contents, mode, link destination or (when compared)
    /// modification time (`M`). `nested` is the difference inside a container file that
    /// ``PackageDifference/Options/expandingContainers`` opened on both sides.
    case modified(
      path: String, old: Entry, new: Entry, details: Details, patch: TextPatch?, nested: PackageDifference?)
    /// Moved from `from` to `to` with the same or similar contents (`R`); `similarity` is in percent, 100 for an
    /// exact rename (see ``PackageNode/difference(from:options:)`` for the rule).
    case renamed(from: String, to: String, similarity: Int, old: Entry, new: Entry, details: Details, patch: TextPatch?)
    /// At the same path in both, of another kind: file, directory or symbolic link (`T`).
    case typeChanged(path: String, old: Entry, new: Entry)

    /// What happened to the entry, with `git diff --name-status` letters as raw values.
    public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
      /// Only in the new tree (`A`).
      case added = "A"
      /// Only in the old tree (`D`).
      case deleted = "D"
      /// At the same path in both, with other contents or attributes (`M`).
      case modified = "M"
      /// Moved, with the same or similar contents (`R`).
      case renamed = "R"
      /// At the same path in both, of another kind (`T`).
      case typeChanged = "T"

      /// The kind's name: `added`, `deleted`, `modified`, `renamed` or `typeChanged`.
      public var description: String {
        switch self {
        case .added: "added"
        case .deleted: "deleted"
        case .modified: "modified"
        case .renamed: "renamed"
        case .typeChanged: "typeChanged"
        }
      }
    }

    /// Which parts of an entry differ between the old and the new tree.
    public struct Details: OptionSet, Hashable, Sendable, CustomStringConvertible {
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

      /// Every part, in the order ``description`` and the JSON schema list them, with its name there.
      static let named: [(Details, description: String, json: String)] = [
        (.contents, "contents", "contents"), (.permissions, "permissions", "mode"),
        (.symbolicLinkDestination, "symbolicLinkDestination", "target"),
        (.modificationTime, "modificationTime", "mtime"),
      ]

      /// The parts' names in brackets: `[contents, permissions]`, `[]` when empty.
      public var description: String {
        "[" + Self.named.filter { contains($0.0) }.map(\.description).joined(separator: ", ") + "]"
      }
    }

    /// The kind of change.
    public var kind: Kind {
      switch self {
      case .added: .added
      case .deleted: .deleted
      case .modified: .modified
      case .renamed: .renamed
      case .typeChanged: .typeChanged
      }
    }

    /// The entry's path in the new tree, or in the old tree for a deleted entry. Components are joined by `/`;
    /// empty for the root.
    public var path: String {
      switch self {
      case .added(let path, _, _), .deleted(let path, _, _), .modified(let path, _, _, _, _, _),
        .typeChanged(let path, _, _):
        path
      case .renamed(_, let to, _, _, _, _, _): to
      }
    }

    /// The entry's path in the old tree for a renamed entry (the `from` of ``renamed(from:to:similarity:old:new:details:patch:)``);
    /// `nil` for other changes.
    public var oldPath: String? {
      if case .renamed(let from, _, _, _, _, _, _) = self { from } else { nil }
    }

    /// How much of a renamed entry's contents is the same, in percent; `nil` for other changes.
    public var similarity: Int? {
      if case .renamed(_, _, let similarity, _, _, _, _) = self { similarity } else { nil }
    }

    /// The entry in the old tree; `nil` for an added entry.
    public var old: Entry? {
      switch self {
      case .added: nil
      case .deleted(_, let entry, _): entry
      case .modified(_, let old, _, _, _, _), .renamed(_, _, _, let old, _, _, _), .typeChanged(_, let old, _): old
      }
    }

    /// The entry in the new tree; `nil` for a deleted entry.
    public var new: Entry? {
      switch self {
      case .added(_, let entry, _): entry
      case .deleted: nil
      case .modified(_, _, let new, _, _, _), .renamed(_, _, _, _, let new, _, _), .typeChanged(_, _, let new): new
      }
    }

    /// Which parts differ, for modified and renamed entries; empty otherwise.
    public var details: Details {
      switch self {
      case .modified(_, _, _, let details, _, _), .renamed(_, _, _, _, _, let details, _): details
      case .added, .deleted, .typeChanged: []
      }
    }

    /// The line differences of a changed text file, when asked for with
    /// ``PackageDifference/Options/includesTextPatches``; `nil` for binary or large files.
    public var patch: TextPatch? {
      switch self {
      case .added(_, _, let patch), .deleted(_, _, let patch), .modified(_, _, _, _, let patch, _),
        .renamed(_, _, _, _, _, _, let patch):
        patch
      case .typeChanged: nil
      }
    }

    /// For a changed container file (such as a zip inside the package) that the
    /// ``PackageDifference/Options/expandingContainers`` hook opened on both sides: the difference between what
    /// is inside.
    public var nested: PackageDifference? {
      if case .modified(_, _, _, _, _, let nested) = self { nested } else { nil }
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

extension PackageDifference.Change: CustomStringConvertible {
  /// The change as `git diff --name-status` would list it, then what differs: `A Data/new.txt`,
  /// `R86 Data/old.txt → Data/new.txt [contents]`, `M Index.json [contents, permissions]`, `T link`.
  public var description: String {
    switch self {
    case .added(let path, _, _), .deleted(let path, _, _), .typeChanged(let path, _, _):
      "\(kind.rawValue) \(path.escapingControlCharacters)"
    case .modified(let path, _, _, let details, _, _):
      "M \(path.escapingControlCharacters) \(details)"
    case .renamed(let from, let to, let similarity, _, _, let details, _):
      "R\(similarity) \(from.escapingControlCharacters) → \(to.escapingControlCharacters)"
        + (details.isEmpty ? "" : " \(details)")
    }
  }
}
