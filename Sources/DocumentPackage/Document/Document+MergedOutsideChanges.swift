import SystemPackage

// Outside changes that a save merged in, or kept a conflict version against, before the monitor reported them.
//
// `saveMerging()` (an app's, or autosave's) can meet another program's change before the document's
// monitor reports it: the merge takes the change in, the document reloads the merged state, and
// the monitor's report that follows names what the model now holds, so it is left out
// (`Document+HeldChanges`). The app would never learn that, say, `B.txt` it shows changed. So the
// save reports it itself, through the channel an app already listens to: an ``OutsideChange``
// with reaction `merged` in the next ``DocumentUpdate``, as the monitor's reaction would have.
// A merge that met a conflict reports it the same way, with reaction `conflict`, as the monitor's
// reaction would have; the model does not hold the other side then, so the state reported is
// remembered for the monitor's report that follows (`reportedWithoutEvent`), which names it again:
// one change, one report, whichever noticed it first.
// Its changes are what the model loaded that changed on disk (`outsideChanges()` as the merge saw it,
// under the package's lock), with a changed folder told as the entries added to it and removed from it;
// when none could be named (an entry another program made without the lock after that look, taken
// in by the save's sweep), the update says `rescanned`: refresh everything.
extension Document {
  /// The changes on disk that `merged` (the document's model before the merge) did not hold, as
  /// the monitor would name them, given the `found` changes of what it loaded and `merged`'s
  /// state now (`current`, the model after the merge).
  func mergedOutsideChanges(
    _ found: [OutsideEntryChange], before merged: PackageNode, after current: PackageNode
  ) -> [PackageMonitor.Change] {
    var changes: [PackageMonitor.Change] = []
    for change in found {
      if change.kind == .removed {
        changes.append(PackageMonitor.Change(.removed, change.path))
        continue
      }
      let old = change.path.isEmpty ? merged : try? merged.node(at: change.path)
      guard let old, old.kind == .directory, let oldChildren = old.loadedChildren else {
        if !change.path.isEmpty { changes.append(PackageMonitor.Change(.modified, change.path)) }
        continue
      }
      // A folder: which entries came and went (its own changed entries are listed on their own).
      let new = change.path.isEmpty ? current : try? current.node(at: change.path)
      guard let new, new.kind == .directory, let newNames = try? Set(new.sortedChildren().map(\.name)) else {
        if !change.path.isEmpty { changes.append(PackageMonitor.Change(.modified, change.path)) }
        continue
      }
      let prefix = change.path.isEmpty ? "" : change.path + "/"
      let oldNames = Set(oldChildren.keys)
      changes += newNames.subtracting(oldNames).sorted().map { PackageMonitor.Change(.added, prefix + $0) }
      changes += oldNames.subtracting(newNames).sorted().map { PackageMonitor.Change(.removed, prefix + $0) }
    }
    if changes.isEmpty { return [PackageMonitor.Change(.rescanned, path.string)] }
    // An entry removed is found gone itself and missing from its changed folder: named once.
    var named = Set<PackageMonitor.Change>()
    return changes.filter { named.insert($0).inserted }
  }

  /// ``mergedOutsideChanges(_:before:after:)`` of `found` for the model as it is, against the package on disk now
  /// (listed lazily: only the changed folders' paths are read).
  func outsideChangesOnDisk(_ found: [OutsideEntryChange]) -> [PackageMonitor.Change] {
    let onDisk = (try? PackageNode(contentsOf: path)) ?? editor.root
    return mergedOutsideChanges(found, before: editor.root, after: onDisk)
  }

  /// Publishes the outside changes a save met (see the comment above), with the save's `reaction`: `merged`, or
  /// `conflict`, whose changes the next event of the monitor does not report again at the state they have now.
  func reportOutsideChangesASaveMet(_ changes: [PackageMonitor.Change], reaction: OutsideChange.Reaction) {
    if case .conflict = reaction, let location = editor.root.origin?.location {
      rememberReported(changes.filter { !$0.path.isEmpty && $0.kind != .rescanned }, at: location)
    }
    outsideChangeCount += 1
    let change = OutsideChange(number: outsideChangeCount, changes: changes, reaction: reaction, packagePath: path)
    lastOutsideChange = change
    publish(outsideChange: change)
  }
}
