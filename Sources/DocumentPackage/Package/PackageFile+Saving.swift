import SystemPackage

extension PackageFile {
  /// Saves the changes made to ``root`` into the package, atomically and incrementally.
  ///
  /// Sequence: take the lock (unless held), settle an interrupted save, check that nothing the
  /// model loaded changed on disk meanwhile (see ``saveMerging()`` to merge instead of failing), build the new state of the smallest changed
  /// subtree beside the package (unchanged files hard-linked — or reflinked or copied where links
  /// are refused — changed files written, permissions and times kept), fsync it, call
  /// ``willReplacePreviousState`` and keep the previous state in the ``VersionStore`` (per
  /// ``versionPolicy``), swap it in with `renameat2(RENAME_EXCHANGE)`, fsync the directories,
  /// remove the old state. Where the file system refuses the exchange (FAT, exFAT, sshfs), the
  /// changed files are staged beside the package and a committed plan changes it in place, file by
  /// file (a journal, `.NAME.docpkg-journal`), which recovery completes after a kill. Afterwards every loaded node reads from the saved package
  /// and counts as unchanged, so the next save is incremental again. Does nothing if nothing changed.
  ///
  /// If the process dies at any point, the package is exactly the old or the new state once
  /// recovered (by the next open or `docpkg check`).
  /// - Throws: ``PackageError`` with code `conflict` if the package changed on disk since it was
  ///   loaded (see ``outsideChanges()``; pass ``SaveOptions/overwritingOutsideChanges`` to save
  ///   anyway), or `io` naming the entry and the failed call. After a failure the package is unchanged.
  /// - Complexity: O(*k*) file-system calls for the *k* entries of the smallest changed subtree
  ///   (one root entry added or replaced is such a subtree: it is renamed into the package's root;
  ///   one entry removed from a folder the model never listed is renamed out of it, whatever the
  ///   folder holds; the whole package when several root entries, a root entry's removal from a
  ///   listed root or the root itself changed), plus O(*n*) `lstat`s for *n* loaded nodes (before the
  ///   save), and one per node the model loaded in that subtree and per folder on the way to it (just
  ///   before its commit point).
  public func save(options: SaveOptions = []) throws {
    try save(options: options, previousStateHolding: nil)
  }

  /// ``save(options:)``, told what a remote holds of the state it replaces.
  /// - Parameter previousStateHolding: A remote holding some of the files of the state this save
  ///   replaces (DocumentSync's pull): the version kept of that state references them instead of
  ///   copying them (``PackageVersion/remote``), and copies the others before the swap.
  package func save(options: SaveOptions, previousStateHolding: RemoteHolding?) throws {
    let heldLock = try lock ?? PackageLock(forPackageAt: path)
    defer { withExtendedLifetime(heldLock) {} }
    _ = try Self.recover(path, locked: heldLock)
    try refuseSavingBesideStrandedSave()
    if !options.contains(.overwritingOutsideChanges) {
      let changes = outsideChanges()
      // The package itself gone or another folder in its place: that is what to say, not its entries.
      if let root = changes.first(where: { $0.path.isEmpty && $0.kind != .modified }) {
        throw PackageError(
          .conflict,
          root.kind == .removed
            ? "package was moved or deleted since it was loaded, not saving:"
            : "package was replaced by another folder since it was loaded, not overwriting:", path: path.string)
      }
      if !changes.isEmpty {
        let shown = changes.prefix(3).map(\.description).joined(separator: ", ")
        let more = changes.count > 3 ? ", and \(changes.count - 3) more" : ""
        throw PackageError(
          .conflict, "package changed on disk since it was loaded, not overwriting:", path: path.string,
          context: "(\(shown)\(more))")
      }
    }
    do {
      try saveLocked(root, holding: previousStateHolding, guarding: !options.contains(.overwritingOutsideChanges))
    } catch let changed as ChangedWhileSaving {
      throw changed.error(path)
    }
  }

  /// Saves the whole package to `newPath` ("save as") and makes this package file edit that package
  /// from now on; the package at ``path`` stays as it was last saved. Anything at `newPath` is
  /// replaced atomically.
  /// - Throws: As ``save(options:)``, except that changes on disk at the old path are not checked.
  public func save(to newPath: FilePath) throws {
    let destination = PackageLink.resolve(newPath)
    if destination == path { return try save() }
    try SaveAsDestination.check(destination, packageAt: path)
    let newLock = try PackageLock(forPackageAt: destination)
    _ = try Self.recover(destination, locked: newLock)
    try withSaver(of: root, to: destination) { try $0.saveWhole(rebasing: true) }
    path = destination
    if lock != nil { lock = newLock }
  }

  /// Writes the whole package, as the model has it now, to `copyPath` ("save to"); this package file
  /// keeps editing ``path`` and its unsaved changes stay unsaved. Anything at `copyPath` is replaced atomically.
  /// - Throws: As ``save(options:)``.
  public func saveCopy(to copyPath: FilePath) throws {
    let destination = PackageLink.resolve(copyPath)
    if destination == path {
      throw PackageError(.invalidArgument, "cannot save a copy over the package itself:", path: copyPath.string)
    }
    try SaveAsDestination.check(destination, packageAt: path)
    let copyLock = try PackageLock(forPackageAt: destination)
    defer { withExtendedLifetime(copyLock) {} }
    _ = try Self.recover(destination, locked: copyLock)
    var saver = try Saver(target: destination, root: root)
    saver.owner = saveOwner
    try saver.saveWhole(rebasing: false)
  }
}

extension PackageNode {
  /// Writes this node (and everything below it) to `path`, atomically: `FileWrapper.write(to:options:originalContentsURL:)`.
  ///
  /// Builds the new tree beside `path` and swaps it in (see ``PackageFile/save(options:)``);
  /// anything at `path` is replaced. Unchanged files loaded from disk are hard-linked from where
  /// they were loaded when `path` is the package they were loaded from, and copied (a reflink where the file
  /// system has them) into any other: the two packages then share no file. The node then reads from `path` and counts as unchanged, like a saved package file's.
  /// - Parameters:
  ///   - path: Where to write the package.
  ///   - originalContentsPath: Where the package this node was loaded from is now, if it
  ///     was moved since it was loaded (`FileWrapper`'s `originalContentsURL`); unchanged files are
  ///     carried over from there.
  /// - Throws: ``PackageError`` naming the entry and the failed call; `path` is then unchanged.
  public func write(to path: FilePath, originalContentsPath: FilePath? = nil) throws {
    if let originalContentsPath, let location = origin?.location { location.root = originalContentsPath }
    let destination = PackageLink.resolve(path)
    try SaveAsDestination.check(destination, packageAt: origin?.location.root)
    let lock = try PackageLock(forPackageAt: destination)
    defer { withExtendedLifetime(lock) {} }
    _ = try PackageFile.recover(destination, locked: lock)
    var saver = try Saver(target: destination, root: self)
    try saver.saveWhole(rebasing: true)
  }
}
