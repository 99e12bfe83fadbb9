/// What a ``Document`` can do now, for an app to show: `UIDocument.State`.
///
/// An empty set (``normal``) means open and editable. Observe changes with ``Document/stateUpdates()``.
public struct DocumentState: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Open and editable, nothing wrong.
  public static let normal: DocumentState = []
  /// Closed: nothing can be read, edited or saved any more.
  public static let closed = DocumentState(rawValue: 1 << 0)
  /// Another program changed the package on disk since it was loaded or saved: saving would
  /// overwrite that, so saves fail until resolved with ``Document/save(overwritingOutsideChanges:)``
  /// (keep this version) or ``Document/revert()`` (keep theirs).
  public static let inConflict = DocumentState(rawValue: 1 << 1)
  /// The last save failed (see ``Document/lastError``); the package on disk is unchanged and the
  /// changes are still in memory.
  public static let savingError = DocumentState(rawValue: 1 << 2)
  /// The document cannot be edited or saved: opened read-only, or its location is not writable.
  public static let editingDisabled = DocumentState(rawValue: 1 << 3)
  /// The package was deleted on disk while the document was open (noticed by watching, see
  /// ``Document/isWatching``, or by a save or ``Document/checkForOutsideChanges()`` that finds it
  /// gone — an unwatched document, or a save before the monitor's report). The document keeps what it holds in memory: ``Document/save(to:)``
  /// saves it elsewhere (and clears this state); saving in place fails. A package replaced by a
  /// directory that no save of it made (another package moved to its path) counts as deleted: the
  /// document neither merges into it nor saves over it (``Document/revert()`` opens it).
  public static let deleted = DocumentState(rawValue: 1 << 4)

  /// `normal`, or the states joined by `+`: `inConflict+savingError`.
  public var description: String {
    let names: [(DocumentState, String)] = [
      (.closed, "closed"), (.inConflict, "inConflict"),
      (.savingError, "savingError"), (.editingDisabled, "editingDisabled"), (.deleted, "deleted"),
    ]
    let shown = names.filter { contains($0.0) }.map(\.1)
    return shown.isEmpty ? "normal" : shown.joined(separator: "+")
  }
}
