extension PackageMonitor {
  /// One change a ``PackageMonitor`` saw under a package on disk.
  ///
  /// Entry changes carry paths inside the package (`Data/a.txt`); package-level changes
  /// (``Kind-swift.enum/packageMoved``, ``Kind-swift.enum/packageReplaced``,
  /// ``Kind-swift.enum/packageDeleted``) carry the package's path on disk.
  public struct Change: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
      /// An entry appeared.
      case added
      /// An entry went away.
      case removed
      /// A file's or link's contents, size or attributes changed (or an entry changed kind).
      case modified
      /// An entry moved inside the package; ``PackageMonitor/Change/oldPath`` is where it was.
      case renamed
      /// The package itself was renamed or moved; ``PackageMonitor/Change/path`` is its new path.
      case packageMoved
      /// Another directory took the package's name (an atomic save); entry changes follow in the same event.
      case packageReplaced
      /// The package is gone; the monitor's sequence ends after this change.
      case packageDeleted
      /// Events were lost (the kernel's queue overflowed); the package was listed again and the
      /// entry changes in the same event are the difference.
      case rescanned
    }

    /// What happened.
    public var kind: Kind
    /// The entry's path inside the package, or the package's path on disk for package-level kinds.
    public var path: String
    /// For ``Kind-swift.enum/renamed``: the entry's previous path inside the package.
    public var oldPath: String?

    /// Creates a change.
    public init(_ kind: Kind, _ path: String, oldPath: String? = nil) {
      self.kind = kind
      self.path = path
      self.oldPath = oldPath
    }

    /// One line: `modified Data/a.txt`, `renamed a.txt -> b.txt`.
    public var description: String {
      if let oldPath {
        return "\(kind.rawValue) \(oldPath.escapingControlCharacters) -> \(path.escapingControlCharacters)"
      }
      return "\(kind.rawValue) \(path.escapingControlCharacters)"
    }
  }
}
