import SystemPackage

/// A save whose only change is one entry removed from a directory the model never listed: the
/// entry is renamed out of its directory, to the temporary name beside the package, so the save
/// costs what the path and the entry cost, not what the directory holds.
///
/// **Why.** The smallest changed subtree of a removal is the directory the entry leaves, and
/// building it anew links every other file in it (and removes the old directory's links after the
/// swap): 1,000 `linkat` and 1,000 `unlinkat` to remove one file from a folder of 1,000. The model
/// need not know that folder to remove one entry from it: a path walk looked the entry up alone
/// (`PackageNode+Probing.swift`), and the removal left the folder unlisted, its name among the
/// folder's ``PackageNode/probedRemovals``.
///
/// **One step.** One `rename` of the entry from its directory to the temporary name (with
/// `RENAME_NOREPLACE`) moves the package from the old state to the new one: before it the entry is
/// there, after it it is gone, and nothing else in the directory is touched (whatever the directory
/// holds that the model never saw stays, as it would in the directory's rebuild). The entry beside
/// the package is then removed, or taken by the keeper; a kill before that leaves it at the
/// temporary name, which ``Recovery`` removes.
///
/// **Conflicts.** The save's outside-change check (``OutsideChangeDetector``) compares the removed
/// entry (a detached node) and the directory's own status, modification time included, since its
/// entries changed in the model: another program's change to that directory or to the entry since
/// the model looked them up is still a conflict, at the cost of two `lstat`s, not one per entry.
///
/// **Versions.** A keeper that takes the replaced subtree after the swap (a deferred version) takes
/// the entry renamed out, as it takes an exchanged one: into the store as `pending/ID.old`, with a
/// record naming its path; the settle reads the entry from there, though its directory no longer
/// lists it (``PendingStateWalk``). The directory's times around the rename go into the record,
/// as for an exchange, and the capture marker says the save built nothing (``SaveIntent``), so
/// that recovery takes the entry at the temporary name for the removed one after a kill.
///
/// **Not here.** A save by journal, several removals, or anything else changed in the directory: the directory is then listed (the removed
/// names left out) and built anew as before. A ``PackageMonitor`` sees the rename as a removal with
/// no new inode, so it cannot tell it from another program's; only models that do not verify their
/// loads probe, and a ``Document`` (whose monitor knows its own saves) lists as before.
struct EntryRemoval {
  /// The directory the entry is removed from.
  let directory: PackageNode
  /// The removed entry's name there (probed names are plain UTF-8: their text is their bytes).
  let name: RawName
  /// The removed entry's path in the package, as the version store names it.
  let changedPath: String

  /// The one removal `changed` (the save's smallest changed subtree) holds, or nil when the save
  /// must build that directory anew.
  /// - Complexity: O(*n*) for the *n* nodes loaded below `changed`.
  init?(_ changed: PackageNode) {
    guard changed.kind == .directory, changed.loadedChildren == nil, changed.edits == [.membership],
      let removals = changed.probedRemovals, removals.count == 1, let removed = removals.first,
      let origin = changed.origin, origin.relativePath == FilePath(changed.path)
    else { return nil }
    for child in changed.probedChildren?.values ?? [:].values where child.changeRoot != nil { return nil }
    directory = changed
    name = RawName(text: removed)
    let base = changed.diskPath
    changedPath = base.isEmpty ? removed : base + "/" + removed
  }
}
