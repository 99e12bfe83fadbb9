import SystemPackage

/// The conflict version a document kept for its side, and what it kept it against: so that one
/// conflict is one version, whichever notices it first — the reaction to an outside change
/// (``Document/react(to:)``) or ``Document/saveMerging()`` — and however often the app saves.
///
/// A conflict version holds the other writer's state with this document's changes on top. Kept
/// again for the same two sides, it would hold the same thing: the document's side is the same
/// while its model (``PackageEditor``) has recorded no change since, or is back in the state it
/// was in (undo and redo between: the undo stack's state, no group open); the other side is the same
/// while, at and below the conflict's paths, the entries where the disk differs from the model
/// are the same and still have the stamps (``DiskStamp``) they had (another writer's change to an
/// unrelated entry does not make the same conflict another one). Another change on either side
/// of the conflicting entries is another conflict, kept as a version of its own.
struct KeptConflict {
  let version: Int
  let paths: [String]
  /// The document's side: its model and how many changes it had recorded.
  let editor: PackageEditor
  let changesThen: Int
  /// The undo stack's state then (``UndoStack/hasUnsavedChanges`` compares the same).
  let stateThen: Int
  /// The other side: where the disk differed from the model, and what was there.
  let otherSide: [OutsideEntryChange: DiskStamp?]

  /// Whether keeping the document's side now would keep what `version` holds.
  func isCurrent(_ current: PackageEditor, otherSide now: [OutsideEntryChange: DiskStamp?]) -> Bool {
    current === editor
      && (current.changesRecorded == changesThen
        || (current.undoStack.groupingLevel == 0 && current.undoStack.currentState == stateThen))
      && onConflictPaths(now) == onConflictPaths(otherSide)
  }

  /// The part of `side` at or below the conflict's paths.
  private func onConflictPaths(_ side: [OutsideEntryChange: DiskStamp?]) -> [OutsideEntryChange: DiskStamp?] {
    side.filter { entry, _ in paths.contains { $0 == entry.path || entry.path.hasPrefix($0 + "/") } }
  }
}

extension Document {
  /// Remembers that `version` keeps this document's side of a conflict on `paths` (see ``KeptConflict``).
  func noteKeptConflict(version: Int, paths: [String]) {
    keptConflict = KeptConflict(
      version: version, paths: paths, editor: editor, changesThen: editor.changesRecorded,
      stateThen: editor.undoStack.currentState, otherSide: otherSideOfConflict())
  }

  /// The conflict version that already keeps this document's side against the package as it is
  /// now, if there is one.
  var currentKeptConflict: KeptConflict? {
    guard state.contains(.inConflict), let kept = keptConflict,
      kept.isCurrent(editor, otherSide: otherSideOfConflict())
    else { return nil }
    return kept
  }

  /// Where the disk differs from the model, with the stamp of what is there now.
  private func otherSideOfConflict() -> [OutsideEntryChange: DiskStamp?] {
    var side: [OutsideEntryChange: DiskStamp?] = [:]
    for change in outsideChangesOfModel() {
      // The path put together as bytes: `path.appending(change.path)` costs its depth squared.
      let status =
        change.path.isEmpty
        ? try? Syscalls.statusNoFollow(path) : try? PackageLocation.currentStatus(of: change.path, in: path)
      side[change] = status.map(DiskStamp.init)
    }
    return side
  }
}
