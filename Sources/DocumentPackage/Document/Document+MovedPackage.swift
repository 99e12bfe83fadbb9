import SystemPackage

// A package moved when the document did not expect it (read with `Document+OutsideChanges`, point 2).
//
// A file manager can rename or move the package at any moment: while a long save builds the new
// state beside it, just before a save, or right after a save that put a new root in place and
// before the monitor looked at it. A package gone from its path looks deleted: the save's swap, or
// a link of an unchanged file, finds nothing at the old path; a save finds nothing there to save
// into; the monitor, whose descriptor is on the root the save replaced, finds that root among the
// package's own entries (`MovedPackage`) and reports the package deleted. The document then
// refused to save in place and sent the app to `save(to:)` (or to `revert()`, which dropped the
// edits).
//
// So the document holds open the root it loaded or last saved (`heldRoot`: taken when it opens,
// at each save in place, after each save and each new model), and before it takes a package gone
// from its path for deleted, it asks where that root is now (`MovedPackage`: a rename or a move
// within the file system, not a deletion, nor a copy to another file system). Moved, the document
// follows it as the monitor's report would make it, published as `followed` (the monitor's own
// report then finds the document there already and is not repeated; a monitor that reported the
// package deleted is started again at the new path), and a save in place (`save()`,
// `saveMerging()`, an autosave) that failed because of the move is made again, once, at the new
// path: an ordinary save of a package that is as it was. Moved again during that save, it fails as
// any save whose package went. Moved just after a save's swap, before the model was pointed at what it
// saved, the save itself follows it (`Saver.followIfMoved`), and the document with it.
extension Document {
  /// Holds the root at ``path`` open, if it is the root the document loaded or last saved (see the
  /// comment above), or the root its last save left, wherever it went since (held by the save from before its
  /// swap: by the path, a rename as the save finished found nothing, or another package, there); otherwise holds
  /// nothing (the next save or the monitor says what is there).
  func holdRoot() {
    heldRoot = nil
    guard let loaded = package?.root.loadedRootIdentity else { return }
    // The root the last save left, held since before its swap: the package's even if it moved since.
    if let left = package?.rootLeftBySave, let identity = RootIdentity.of(left.fd), identity.isSame(as: loaded) {
      heldRoot = (left, identity)
      return
    }
    guard let root = try? HeldDirectory(path), let identity = RootIdentity.of(root.fd), identity.isSame(as: loaded)
    else { return }
    heldRoot = (root, identity)
  }

  /// Follows the package if it is gone from ``path`` (or another package took its name: `mv P P.old && mv
  /// Other P`, as quick as a script) and its root is elsewhere (see the comment above); returns whether it did.
  func followMovedRoot() -> Bool {
    guard let held = heldRoot, packageVanished || packageReplacedByAnother,
      let newPath = MovedPackage.newPath(rootDescriptor: held.directory.fd, root: held.identity, from: path)
    else { return false }
    announceFollowed(to: newPath)
    return true
  }

  /// Follows the package to `newPath`, where it moved, and publishes it as ``OutsideChange/Reaction/followed``:
  /// found gone from its path (``followMovedRoot()``), or found there by a save of its own just after its swap.
  func announceFollowed(to newPath: FilePath) {
    follow(to: newPath)
    let moved = PackageMonitor.Change(.packageMoved, newPath.string)
    finish(PackageMonitor.Event(changes: [moved], isOwnSave: false, packagePath: newPath.string), .followed)
  }
}
