import SystemPackage

/// A change another program made to a watched ``Document``'s package, and what the document did
/// about it: `NSFilePresenter`'s notifications and `UIDocument`'s reaction, as one value.
///
/// A watching document (the default; see ``Document/isWatching``) publishes one in a
/// ``DocumentUpdate`` (``DocumentUpdate/outsideChange``) after each burst of outside changes, and
/// keeps the last one in ``Document/lastOutsideChange``. An app refreshes the views that show
/// ``changes`` and, for ``Reaction-swift.enum/conflict(version:paths:)`` or
/// ``Reaction-swift.enum/deleted``, asks the user.
public struct OutsideChange: Sendable, Hashable, CustomStringConvertible {
  /// What the document did with an outside change.
  public enum Reaction: Sendable, Hashable {
    /// The document had no unsaved changes: it shows the package as it is on disk now (the
    /// parts it had loaded that changed were read again). The undo stack was emptied.
    case reloaded
    /// The document had unsaved changes, and none touched what changed outside: it shows the
    /// package as it is on disk now with its own changes on top, still unsaved. `paths` are the
    /// text files both sides changed, merged line-wise (often empty).
    case merged(paths: [String])
    /// Both sides changed the entries `paths` and they could not be merged: the package keeps
    /// the outside state, the document keeps its own (unsaved), and its own side (the package
    /// with all its changes on top) was kept as the unresolved conflict version `version`. The
    /// document is ``DocumentState/inConflict`` until ``Document/resolveConflicts(keeping:removing:)``,
    /// ``Document/save(overwritingOutsideChanges:)`` or ``Document/revert()``.
    case conflict(version: Int, paths: [String])
    /// The package moved (``Document/path`` is its new path) and nothing in it changed.
    case followed
    /// The package was deleted: the document is ``DocumentState/deleted``; what it holds in memory
    /// can still be saved elsewhere with ``Document/save(to:)``. A deletion seen in bursts (files
    /// first, then the package, as `rm -rf` goes) is one `deleted`, and the document holds what it
    /// held before the deletion began.
    case deleted
    /// The document was already ``DocumentState/inConflict``: nothing was applied until the conflict is settled.
    case deferred
    /// Applying the change failed (`message` says why; ``Document/lastError`` has the error); the
    /// document's model was left as it was.
    case failed(message: String)
  }

  /// Counts the outside changes a document has seen, from 1: two identical changes in a row are
  /// still two updates.
  public var number: Int
  /// What the monitor saw, package-level changes first (see ``PackageMonitor/Change``).
  public var changes: [PackageMonitor.Change]
  /// What the document did.
  public var reaction: Reaction
  /// The package's path after the change.
  public var packagePath: FilePath

  /// Creates a record of an outside change.
  public init(number: Int, changes: [PackageMonitor.Change], reaction: Reaction, packagePath: FilePath) {
    self.number = number
    self.changes = changes
    self.reaction = reaction
    self.packagePath = packagePath
  }

  /// `reloaded: modified Text.txt, added Images/b.png`.
  public var description: String {
    let reaction: String
    switch self.reaction {
    case .reloaded: reaction = "reloaded"
    case .merged(let paths): reaction = paths.isEmpty ? "merged" : "merged (\(paths.joined(separator: ", ")))"
    case .conflict(let version, let paths):
      reaction = "conflict on \(paths.joined(separator: ", ")), kept as version \(version)"
    case .followed: reaction = "followed"
    case .deleted: reaction = "deleted"
    case .deferred: reaction = "deferred (in conflict)"
    case .failed(let message): reaction = "failed: \(message)"
    }
    return "\(reaction): " + changes.map(\.description).joined(separator: ", ")
  }
}
