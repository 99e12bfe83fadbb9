import SystemPackage

// A package moved while the document saved it (read with `Document+OutsideChanges`, point 2).
//
// A file manager can rename or move the package at any moment, also while a long save builds the
// new state beside it. The save then fails, having changed nothing: its swap, or a link of an
// unchanged file, finds no package at the old path. A package gone from its path looks deleted,
// and the monitor's report of the move comes only after the save, on the same queue: the document
// took its package for deleted, refused to save in place, and sent the app to `save(to:)` (or to
// `revert()`, which dropped the edits). So a save in place (`save()`, `saveMerging()`, an
// autosave) holds the package's root open while it runs; when it fails and the package is no
// longer at ``Document/path`` but its root is elsewhere on the file system (`MovedPackage`: a
// rename or a move, not a deletion, nor a copy to another file system), the document follows it as
// the monitor's report would make it (published as `followed`; the monitor's own report then finds
// the document there already and is not repeated) and saves again, once, at the new path: an
// ordinary save of a package that is as it was. Moved again during that save, it fails as any
// save whose package went.
extension Document {
  /// The package's root, held open for ``followMoveAfterFailedSave(_:)``: nil when what is at
  /// ``path`` is not the root the document loaded or last saved (the save says what is wrong).
  func holdRootForSave() -> (root: HeldDirectory, inode: UInt64)? {
    guard let loaded = package?.root.origin?.status, let root = try? HeldDirectory(path),
      let status = try? Syscalls.status(of: root.fd), status.device == loaded.device, status.inode == loaded.inode
    else { return nil }
    return (root, status.inode)
  }

  /// After a save in place failed: follows the package if it moved since `held` was taken (see the
  /// comment above); returns whether it did.
  func followMoveAfterFailedSave(_ held: (root: HeldDirectory, inode: UInt64)?) -> Bool {
    guard let held, packageVanished,
      let newPath = MovedPackage.newPath(rootDescriptor: held.root.fd, rootInode: held.inode, from: path)
    else { return false }
    follow(to: newPath)
    let moved = PackageMonitor.Change(.packageMoved, newPath.string)
    finish(PackageMonitor.Event(changes: [moved], isOwnSave: false, packagePath: newPath.string), .followed)
    return true
  }
}
