import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// How a watching document reacts to an outside change (read this first).
//
// The document's `PackageMonitor` reports each burst of changes under the package (debounced,
// 25 ms) to `react(to:)`, which runs on the document's own queue like every other job of the actor,
// so reloading and merging never block the cooperative pool and never interleave with an edit or
// a save. The reaction:
//
// 1. Deleted (the monitor's last event): the state gains `deleted`; the model stays in memory and
//    `save(to:)` can write it elsewhere. Saving in place fails. `rm -rf` removes the files first,
//    then the folders, then the package, often over several bursts: the monitor holds removals
//    alone back until nothing happened for `removalsWait` (`Document+Watching`) and the package is
//    still there, so that such a deletion comes as one event, the deletion. Removals that come
//    anyway (a deletion that paused longer) are not applied when the package is already gone
//    from its path, and a reaction that finds it gone publishes nothing: both wait for the
//    monitor's next event (deleted or moved), which then lists both. And when the reactions just
//    before the deletion only applied removals (one burst or several), and nothing changed in the
//    document since (no edit, undo, redo or save), the model from before the first comes back, so
//    that a deleted document holds all it held before the deletion began. A package replaced by
//    a directory no save made (another package moved there) is taken as deleted too
//    (`Document+ReplacedPackage`).
// 2. Moved: `path`, the package file's path and the model's location follow the new path (files
//    not read yet are read from there); the monitor follows by itself. Reported as `followed` when
//    nothing else is news: with the move alone (an own save in the same burst is held, not reported).
//    A package the monitor takes for deleted is first looked for where the document's own root went
//    (`Document+MovedPackage`).
// 3. Anything else: the changes the model already holds are left out of the event (its own
//    saves; `Document+HeldChanges`), and the model is compared with the disk (`outsideChanges()`,
//    one `lstat` per loaded node). The burst of its own save also names what no event could show
//    (`Document+OwnSaveGap`: another program's change between the save's swap and the monitor's new
//    watches). No entry change left, and nothing that the model loaded changed (or the event is this
//    process's save: what else changed comes in a later event): nothing to do. This is what tells the
//    document's own saves from others', change by change, even in one burst — another document in
//    this process saving the same package is an outside change. Otherwise:
//    - in conflict already, with a conflict version kept: nothing is applied (`deferred`) until the
//      app settles the conflict (in conflict only because a plain save was refused, the change is
//      taken in as below, and the conflict is over unless it keeps a conflict version);
//    - no unsaved changes: the package is opened again and becomes the model, the undo stack is
//      emptied (its steps describe a state that no longer exists) — `reloaded`;
//    - unsaved changes: they are listed (`OwnChanges`, each with the `lstat` it was loaded with)
//      and merged into the new state (`PackageMerge`, the three-way merge `PackageFile.saveMerging()`
//      makes too), a text file both sides changed merged line-wise (`TextMerge`) when the base is in
//      the version store. First on a scratch tree: if every change applies,
//      the model becomes the new state with the document's changes on top as one undo step
//      ("Undo Unsaved Changes", which goes back to the outside state, clean) — `merged`. If both
//      sides changed an entry, the model stays as it is, the scratch tree (the outside state with
//      the document's side winning) is kept as a conflict version, and the state gains `inConflict`.
//      Either way nothing either side did is lost.
// A change found only in parts the model never loaded needs no work: the lazy model reads the
// new state when it gets there. It is still reported (`reloaded` or `merged` with what the monitor
// saw), so that an app can refresh what it shows; after a lazy load met a save and the document
// reacted at once, the monitor's own report of that save comes too, listing what it saw. A change that comes while an undo group is open waits until the
// group is closed (the model must not be replaced in the middle of a group).
extension Document {
  /// Reacts to one burst of outside changes reported by `source` (see the comment above).
  func react(to event: PackageMonitor.Event, from source: PackageMonitor) {
    guard !state.contains(.closed), monitor === source else { return }  // not a stopped monitor's last event
    react(to: event)
  }

  /// Reacts to one burst of outside changes, or keeps it for later while an undo group is open
  /// (replacing the model then would cut the group in two).
  func react(to latest: PackageMonitor.Event) {
    executor.requireOnQueue()
    var event = latest
    if let earlier = eventBeforeVanishing {
      eventBeforeVanishing = nil
      event = earlier.followed(by: latest)
    }
    if editor.undoStack.groupingLevel > 0, !event.changes.contains(where: { $0.kind == .packageDeleted }) {
      pendingOutsideEvent = pendingOutsideEvent.map { $0.followed(by: event) } ?? event
      return
    }
    let beforeRemovals = modelBeforeRemovals.flatMap { $0.isCurrent(editor) ? $0.editor : nil }
    let saveFailed = state.contains(.savingError) || state.contains(.inConflict)
    let kinds = Set(event.changes.map(\.kind))
    if kinds.contains(.packageDeleted) {
      // The document followed a move the monitor had not seen yet (`Document+MovedPackage`), or the root a
      // save put in place moved before the monitor looked at it: the package is not deleted.
      let behind = FilePath(event.packagePath) != path && !packageVanished && !packageReplacedByAnother
      if behind || followMovedRoot() {
        restartWatching()
        return
      }
      reportDeletion(event)
      return
    }
    if kinds.contains(.packageReplaced), packageReplacedByAnother {  // not a save: another package
      if followMovedRoot() {  // and this one moved away just before
        restartWatching()
        return
      }
      reportDeletion(event)
      return
    }
    if kinds == [.removed], packageVanished {  // the package went too: the monitor says how next
      if !state.contains(.deleted) { eventBeforeVanishing = event }
      return
    }
    var moved = false
    // Not where the document followed its package already, ahead of the monitor (`Document+MovedPackage`).
    if kinds.contains(.packageMoved), FilePath(event.packagePath) != path, packageVanished || packageReplacedByAnother {
      follow(to: FilePath(event.packagePath))
      moved = true
    }
    let packageLevel: Set<PackageMonitor.Change.Kind> = [.packageMoved, .packageReplaced, .rescanned]
    // Only what the model does not hold yet is reacted to and reported (`Document+HeldChanges`).
    let notHeld = changesNotHeld(in: event)
    reportedWithoutEvent = [:]  // kept for the event after the one that found it, no longer (`Document+OwnSaveGap`)
    let news = notHeld + changesNoEventShowed(in: event)
    let touchesEntries = news.contains { !packageLevel.contains($0.kind) }
    // In conflict the model differs from the disk anyway: with no news there is nothing to defer. (The model is
    // compared with the disk, one `lstat` per loaded node, only where the answer matters: not for an own save.)
    let quiet = !touchesEntries && (event.isOwnSave || state.contains(.inConflict))
    let onDisk = quiet ? [] : outsideChangesOfModel()
    if !touchesEntries && (onDisk.isEmpty || event.isOwnSave || state.contains(.inConflict)) {
      // The move alone: what else the event lists (an own save in the same burst) is held, not news.
      if moved {
        finish(
          PackageMonitor.Event(changes: news, isOwnSave: event.isOwnSave, packagePath: event.packagePath), .followed)
      }
      return
    }
    // The event named nothing the model did not hold, yet the model differs from the disk: what differs is listed
    // (an update naming nothing left an app nothing to show).
    let found =
      touchesEntries
      ? []
      : onDisk.filter { !$0.path.isEmpty }.map {
        PackageMonitor.Change($0.kind == .removed ? .removed : .modified, $0.path)
      }
    event = PackageMonitor.Event(changes: news + found, isOwnSave: event.isOwnSave, packagePath: event.packagePath)
    let reaction: OutsideChange.Reaction
    // In conflict with a version kept (an entry both sides changed): nothing is applied until the app settles it.
    // In conflict only because a plain save was refused (or `checkForOutsideChanges()` found changes), no version
    // kept: the change is taken in as any (merged, or kept as the one conflict version), and the refusal is over.
    let refusedOnly = state.contains(.inConflict) && keptConflict == nil
    if state.contains(.inConflict) && !refusedOnly {
      reaction = .deferred
    } else if onDisk.isEmpty {
      reaction = hasUnsavedChanges ? .merged(paths: []) : .reloaded
    } else {
      let previous = editor
      do {
        reaction = hasUnsavedChanges ? try mergeOutsideChanges() : try reloadFromDisk()
        if editor !== previous,
          event.changes.allSatisfy({
            $0.kind != .packageReplaced && (packageLevel.contains($0.kind) || $0.kind == .removed)
          })
        {
          // Several bursts of one deletion: the model from before the first comes back. (Not
          // after a new root: another program's save removed the entries, `rm -rf` builds nothing.)
          modelBeforeRemovals = ModelBeforeRemovals(editor: beforeRemovals ?? previous, replacement: editor)
        }
      } catch {
        if packageVanished {
          if !state.contains(.deleted) { eventBeforeVanishing = event }  // else: already reported
          if editor !== previous {  // replaced before the package went: bring back the one before
            modelBeforeRemovals = ModelBeforeRemovals(editor: beforeRemovals ?? previous, replacement: editor)
          }
          return
        }
        let failure =
          error as? PackageError
          ?? PackageError(.io, "cannot apply an outside change to", path: path.string, context: "(\(error))")
        lastError = failure
        reaction = .failed(message: failure.description)
      }
    }
    // A reaction that succeeded clears the error of one that failed before it (a failed save's stays
    // while the state says it failed: `savingError`, `inConflict`).
    // Taken in: into the model, or kept as the one conflict version (the refused save's error is then out of date).
    var takenIn = false
    switch reaction {
    case .reloaded, .merged, .conflict: takenIn = true
    default: break
    }
    if takenIn && refusedOnly && keptConflict == nil { state.remove(.inConflict) }
    if case .failed = reaction {
    } else if !saveFailed || (takenIn && refusedOnly && !state.contains(.savingError)) {
      lastError = nil
    }
    finish(event, reaction)
  }

  /// Whether the package is no longer a directory at ``path``: deleted or moved away while the
  /// document reacted to a change in it or saved it. The monitor reports which next (its root watch saw it go).
  var packageVanished: Bool {
    (try? Syscalls.statusNoFollow(path))?.kind != .directory
  }

  /// The package is gone from ``path`` (or another took its place): the state gains ``DocumentState/deleted``,
  /// watching stops, and `event` is reported as the deletion, once, whoever noticed it first: the monitor, or
  /// a save or check that found the package gone before the monitor's report (`noticeDeletionIfGone()`). Removals
  /// the monitor reported just before the package went (`eventBeforeVanishing`) are reported with it.
  func reportDeletion(_ event: PackageMonitor.Event) {
    var event = event
    if let earlier = eventBeforeVanishing {
      eventBeforeVanishing = nil
      event = earlier.followed(by: event)
    }
    if !state.contains(.deleted) { becomeDeleted() }
    stopMonitor()
    finish(event, .deleted)
  }

  /// The package was deleted on disk: the state gains ``DocumentState/deleted``, and the model
  /// from before the first bursts of the deletion comes back (point 1 above).
  func becomeDeleted() {
    if let before = modelBeforeRemovals, before.isCurrent(editor) { editor = before.editor }
    modelBeforeRemovals = nil
    cancelAutosave()
    // A conflict with a package that is gone is over: nothing can be merged into it or saved over it, and
    // the app's way on is save(to:) (a save that met the deletion half-way failed as a conflict first).
    state.remove(.inConflict)
    state.insert(.deleted)
  }

  /// Reacts to an outside change kept while an undo group was open, once it is closed.
  func reactToPendingOutsideChange() {
    guard let pending = pendingOutsideEvent, editor.undoStack.groupingLevel == 0, !state.contains(.closed) else {
      return
    }
    pendingOutsideEvent = nil
    react(to: pending)
  }

  /// Records and publishes the reaction to `event`.
  func finish(_ event: PackageMonitor.Event, _ reaction: OutsideChange.Reaction) {
    outsideChangeCount += 1
    let change = OutsideChange(
      number: outsideChangeCount, changes: event.changes, reaction: reaction, packagePath: path)
    lastOutsideChange = change
    publish(outsideChange: change)
    restartAutosaveTimer()
  }

  /// Makes the document follow its package to `newPath` (moved or renamed by another program).
  func follow(to newPath: FilePath) {
    path = newPath
    package?.path = newPath
    editor.root.origin?.location.root = newPath
  }

  /// What changed on disk in the parts the model loaded.
  func outsideChangesOfModel() -> [OutsideEntryChange] {
    if let package { return package.outsideChanges() }
    guard let location = editor.root.origin?.location else { return [] }
    return OutsideChangeDetector.changes(in: editor.root, location: location)
  }

  /// Opens the package again and makes it the model (undo stack emptied, clean): no unsaved changes.
  private func reloadFromDisk() throws -> OutsideChange.Reaction {
    replaceModel(with: try reopen())
    lastError = nil
    state.remove(.savingError)
    return .reloaded
  }

  /// Opens the package at ``path`` again (a new ``PackageFile`` for an editable document) and
  /// returns its root; the document's own package file is replaced.
  func reopen() throws -> PackageNode {
    guard package != nil else { return try PackageNode(contentsOf: path) }
    let reopened = try openPackageFile()
    package?.close()
    package = reopened
    return reopened.root
  }

  /// Replays the unsaved changes onto the package as it is on disk now (see the comment above
  /// and `PackageMerge`).
  private func mergeOutsideChanges() throws -> OutsideChange.Reaction {
    guard let package else { return try reloadFromDisk() }
    let scratch = try PackageNode(contentsOf: path)
    let merge = PackageMerge(
      try OwnChanges(of: editor.root), into: scratch, packagePath: path, store: try? package.versionStore())
    if !merge.conflicts.isEmpty {
      merge.applyConflicts(to: scratch)
      let lock = try PackageLock(forPackageAt: path)
      defer { withExtendedLifetime(lock) {} }
      let version = try VersionStore(packagePath: path, lockHeld: true).keep(
        scratch, origin: .conflict, conflictPaths: merge.conflictPaths)
      state.insert(.inConflict)
      noteKeptConflict(version: version.id, paths: merge.conflictPaths)
      cancelAutosave()
      return .conflict(version: version.id, paths: merge.conflictPaths)
    }
    replaceModel(with: try reopen())
    let stack = editor.undoStack
    try stack.group(named: "Unsaved Changes") {
      stack.endCoalescing()
      try merge.replay(onto: editor.root)
    }
    stack.endCoalescing()
    return .merged(paths: merge.mergedPaths)
  }
}

/// The model a reaction to outside removals replaced (see ``Document/react(to:)``, point 1).
struct ModelBeforeRemovals {
  /// The editor (and with it the model) before the reaction.
  let editor: PackageEditor
  /// The editor the reaction made, and how many changes it had recorded then.
  let replacement: PackageEditor
  let changesThen: Int

  init(editor: PackageEditor, replacement: PackageEditor) {
    self.editor = editor
    self.replacement = replacement
    changesThen = replacement.changesRecorded
  }

  /// Whether `current` is still the reaction's model, unchanged since.
  func isCurrent(_ current: PackageEditor) -> Bool {
    current === replacement && current.changesRecorded == changesThen
  }
}
