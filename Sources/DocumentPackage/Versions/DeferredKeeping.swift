import SystemPackage

/// Keeping the previous state in O(changed) on the save's critical path, and copying the rest
/// later (``PackageFile/defersVersionCopies``).
///
/// **On the save's path** (under the package lock): before the swap, ``begin(in:changing:adding:newTree:)``
/// takes the version's id and the capture time *T*: the modification time of a file it creates
/// in the store (`pending/ID.start`), so that *T* comes from the same clock as the package
/// files' times. After the swap, the subtree the save replaced (which holds the previous bytes
/// of everything that changed) is renamed into the store as `pending/ID.old` instead of being
/// removed, and `pending/ID` records "the package as it was at *T*, with the replaced subtree
/// in `ID.old`" (``PendingVersion``); a save that added an entry (a root entry renamed in without
/// replacing anything) records it as absent from the previous state instead. The times of the
/// directory the save renamed in, just before and after the rename, go into the record too, and so
/// does the status, just before, of each entry whose change time the save's own links (or the rename
/// of the replaced entry) move while it was already after an earlier pending capture
/// (``PendingVersion/Seen``). The save then waits until the file system's clock has
/// passed *T* (a millisecond at most), so that every write after the save returns gives a file
/// a time after *T*. No package file is read, hashed or listed. If the subtree cannot be moved
/// into the store (a directory another user owns cannot change folders) or the record cannot be
/// written, the save puts the previous state back and fails: it never reports a version it did
/// not keep.
///
/// **Later** (``VersionStore/settlePendingVersions()``: ``PendingSettler`` runs it after the
/// save, as a detached `docpkg versions settle` for `docpkg` or in-process for a ``Document``, and
/// any reading of the store runs it first), the version is written
/// from `ID.old` and the package: a file is kept only if its modification time is not after *T*
/// and its change time is not after *T* either (or, in a replaced subtree, after our own saves'
/// links: ``PendingStateWalk``); any other was written, replaced, linked or chmod'ed during the
/// window, and the version names it in ``PackageVersion/unkeptPaths`` instead of keeping bytes or
/// permissions that are not the version's.
///
/// **Beside a settle.** The settle walks the package while saves go on; the order of this type's
/// steps (id, marker, swap, record, marker removed) is what lets it tell a walk no swap fell
/// inside (``SaveSequence``).
///
/// **Crash cases.** The capture marker holds what the record will say (``SaveIntent``), so that
/// recovery, under the package lock, completes the record of a save killed after its swap
/// (``completeInterruptedSaves(_:parentFD:)``): the replaced tree left beside the package (told from
/// a new tree never swapped in by its identity) is moved to `ID.old`, an `ID.old` without a
/// record gets one, and so does an added entry found at its name (the tree the save built).
/// Removing that tree instead would lose what the pending versions before it still read from it;
/// leaving an added entry unrecorded would make them take it for their own. A save killed before
/// its swap (or after swapping back) leaves only its marker: recovery marks it abandoned, and the
/// next save's ``begin(in:changing:adding:newTree:)`` removes it.
///
/// **A save that fails after its swap** swaps back and renames its marker `ID.abandoned` with the
/// times the two renames left (``abandon(undone:)``), kept while the pending versions before it wait
/// (``UndoneSwap``): the package is as it was, but not its directory's times.
final class DeferredKeeping {
  /// The name in `pending/` that says a save is building its new state (``VersionKeeping/willBuildNewState()``).
  static let savingMarker = "saving.start"
  private let keepLast: Int?
  /// The times of the directory the save renamed its entry in, around the rename
  /// (``willSwap(containerBefore:)``, ``swapped(containerAfter:)``; see ``PendingVersion/ContainerTimes``).
  private var containerTimes: PendingVersion.ContainerTimes?
  private var begun: (store: VersionStore, id: Int, start: FileTime, root: FileStatus)?
  /// The status before the link of each file the save linked into its new state (``linked(_:)``).
  private var linkedBefore: [FileStatus] = []
  /// What the record says the save saw (see ``PendingVersion/Seen``), found by ``begin(in:changing:adding:newTree:)``.
  private var seen: [PendingVersion.Seen] = []
  /// What the capture marker says (nil: it has no intent), for the lines appended to it.
  private var intent: SaveIntent?
  /// The names in the package's root just before the capture (see ``PendingVersion/rootListing``).
  private var rootListing: [String]?

  init(policy: VersionPolicy) {
    if case .keepLast(let count) = policy { keepLast = count } else { keepLast = nil }
  }

  /// The files the save's build linked into its new state, before ``begin(in:changing:adding:newTree:)``:
  /// their status before the link is what ``PendingVersion/Seen`` records.
  func linked(_ files: [RelinkedFile]) {
    guard begun == nil else { return }
    linkedBefore += files.map(\.before)
  }

  /// The entries this save linked, or is about to move into the store (the replaced entry at
  /// `changedPath`), whose change times were after the capture of a pending version still waiting:
  /// the link or the rename moves that change time again, and with it the only trace of a change
  /// another program made since that capture (see ``PendingStateWalk``).
  private func seenSinceCaptures(in store: VersionStore, changing changedPath: String, adding: Bool)
    -> [PendingVersion.Seen]
  {
    var statuses = linkedBefore
    linkedBefore = []
    if !changedPath.isEmpty, !adding,
      let status = try? Syscalls.statusNoFollow(store.packagePath.appending(changedPath))
    {
      statuses.append(status)
    }
    guard !statuses.isEmpty else { return [] }
    let starts = store.pendingIDs.compactMap { store.pendingRecord($0)?.start }
    guard let oldest = starts.min() else { return [] }
    return statuses.filter { $0.changeTime > oldest }.map(PendingVersion.Seen.init)
  }

  /// Takes the id and the capture time in `store` (the save's, see ``VersionKeeping``); called
  /// before the swap, under the package lock, with the new state built.
  /// - Parameters:
  ///   - store: The package's store.
  ///   - changedPath: The entry the save replaces or adds, relative to the package ("" for the whole package).
  ///   - adding: Whether the save adds `changedPath` rather than exchanging it.
  ///   - newTree: What the save built (at the temporary name): written into the marker with the
  ///     rest of the record to be (``SaveIntent``), so that recovery can complete the record of a
  ///     save killed after its swap. Without it, recovery removes what such a save replaced.
  ///   - removing: The save builds nothing: it renames `changedPath` out to the temporary name
  ///     (``EntryRemoval``), where recovery then finds the removed entry (the intent says so).
  func begin(
    in store: VersionStore, changing changedPath: String, adding: Bool, newTree: FileStatus?, removing: Bool = false
  ) throws {
    guard begun == nil else { return }
    let packagePath = store.packagePath
    try store.prepareDirectories()
    store.removeAbandonedPending()
    let root: FileStatus
    do { root = try Syscalls.statusNoFollow(packagePath) } catch {
      throw PackageError.io(error, "cannot read status of", path: packagePath.string)
    }
    seen = seenSinceCaptures(in: store, changing: changedPath, adding: adding)
    // Before the capture: an entry removed after the listing is missing from the root at the settle, as one
    // removed after *T* is; one made between the two is in the state at *T*, as the settle takes it.
    rootListing = changedPath.isEmpty ? nil : Self.rootListing(of: packagePath)
    let id = try store.takeNextID()
    let marker = store.pendingPath.appending("\(id).start")
    let built: [UInt64]? = removing ? [] : newTree.map { [$0.device, $0.inode] }
    let intent = built.map {
      SaveIntent(
        newTree: $0, rootPermissions: root.permissions, rootTime: root.modificationTime,
        changed: changedPath, replaced: adding ? .absent : .kept, keepLast: keepLast, seen: seen,
        rootListing: rootListing)
    }
    let start: FileTime
    do {
      let fd = try Syscalls.openFile(marker, [.writeOnly, .create, .truncate, .noFollow], mode: 0o644)
      defer { Syscalls.closeFile(fd) }
      if let intent { try StoreFiles.write(intent.encoded(), to: fd) }
      // The capture time is the marker's, set after its contents; then written into it, checked
      // (a marker's time is not: `touch` would move it), which completes the capture.
      try Syscalls.setModificationTimeToNow(fd)
      start = try Syscalls.status(of: fd).modificationTime
      if let intent { try StoreFiles.write(intent.startLines(start), to: fd) }
    } catch {
      throw PackageError.io(error, "cannot create", path: marker.string, context: "while keeping a version")
    }
    // The build's links are marked by `ID.start` from now on (see ``PendingStateWalk``).
    try? Syscalls.unlink(store.pendingPath.appending(Self.savingMarker))
    begun = (store, id, start, root)
    self.intent = intent
  }

  /// Just before the save renames its entry into a directory of the package, whose status is
  /// `before`: appends the directory's times to the capture marker (``SaveIntent/BeforeSwap``), so that
  /// recovery can record them for a save killed after the rename. Best effort: without the line,
  /// such a record says nothing of the directory, and the settle trusts nothing of it.
  func willSwap(containerBefore before: FileStatus) {
    guard let begun else { return }
    containerTimes = PendingVersion.ContainerTimes(before: before, after: nil)
    let line = SaveIntent.BeforeSwap(modification: before.modificationTime, change: before.changeTime)
    let marker = begun.store.pendingPath.appending("\(begun.id).start")
    guard let fd = try? Syscalls.openFile(marker, [.writeOnly, .append, .noFollow]) else { return }
    try? StoreFiles.write(intent.map { $0.beforeSwapLines(line) } ?? line.line, to: fd)
    Syscalls.closeFile(fd)
  }

  /// After the rename and the directory's fsync: the directory's status now (see ``willSwap(containerBefore:)``),
  /// appended to the capture marker too, for a save killed before its record (``SaveIntent/AfterSwap``).
  func swapped(containerAfter after: FileStatus) {
    containerTimes?.after = (after.modificationTime, after.changeTime)
    guard let begun, containerTimes != nil, let written = intent else { return }
    let line = SaveIntent.AfterSwap(modification: after.modificationTime, change: after.changeTime)
    let marker = begun.store.pendingPath.appending("\(begun.id).start")
    guard let fd = try? Syscalls.openFile(marker, [.writeOnly, .append, .noFollow]) else { return }
    defer { Syscalls.closeFile(fd) }
    if (try? StoreFiles.write(written.afterSwapLines(line), to: fd)) != nil { intent?.afterSwap = line }
  }

  /// After the swap, before it is reported: moves the replaced subtree (`name` in `parentFD`) into
  /// the store and records the pending version. Returns false if no capture was begun (the caller
  /// removes the tree).
  /// - Throws: ``PackageError`` when the subtree cannot be moved into the store (a directory
  ///   another user owns cannot be moved to another folder) or the record cannot be written; the
  ///   subtree is then back at `name`, nothing is recorded, and the caller puts it back in place
  ///   and fails the save: the version it promised cannot be kept.
  func keep(replacedIn parentFD: CInt, _ name: RawName, changedPath: String) throws -> Bool {
    guard let begun else { return false }
    let (store, id) = (begun.store, begun.id)
    let old = RawName("\(id).old")
    let pendingFD: CInt
    do { pendingFD = try Syscalls.openFile(store.pendingPath, [.readOnly, .directory]) } catch {
      throw PackageError.io(
        error, "cannot keep the replaced state as a version: cannot open", path: store.pendingPath.string)
    }
    defer { Syscalls.closeFile(pendingFD) }
    do { try Syscalls.rename(from: parentFD, name, to: pendingFD, old) } catch {
      throw PackageError.io(
        error, "cannot keep the replaced state as a version: cannot move it into",
        path: store.pendingPath.appending(old.string).string,
        context: "(\(changedPath.isEmpty ? "the whole package" : changedPath))")
    }
    do { try record(changedPath: changedPath, replaced: .kept, in: pendingFD) } catch {
      try? Syscalls.rename(from: pendingFD, old, to: parentFD, name)
      throw error
    }
    return true
  }

  /// After a swap that left no copy of the replaced entry: the pending version says it is lost.
  func lose(changedPath: String) {
    try? record(changedPath: changedPath, replaced: .lost)
  }

  /// After a save that added `changedPath` (renamed in without replacing anything): the pending
  /// version records that the previous state had no entry there.
  /// - Throws: ``PackageError`` if the record cannot be written (the caller takes the entry out
  ///   again and fails the save).
  func recordAbsent(changedPath: String) throws {
    try record(changedPath: changedPath, replaced: .absent)
  }

  /// After a save that failed once the capture was begun: renames the capture's time marker to
  /// `ID.abandoned`, so that a settle walking the package meanwhile sees that a save may have swapped
  /// and swapped back (``SaveSequence``).
  /// - Parameter undone: The status of the directory the save renamed its entry in, once the entry was
  ///   renamed back, and of that entry (nil: the save failed before its swap). Appended to the marker
  ///   (``SaveIntent/Undone``),
  ///   it makes the two renames a link in the chain of our renames in that directory (``UndoneSwap``),
  ///   and the marker stays while pending versions before it wait: without it, their settle would take
  ///   the times the renames moved for another program's change, and name the directory as not kept.
  func abandon(undone: (container: FileStatus, entry: FileStatus?)? = nil) {
    guard let begun else { return }
    let swapped = containerTimes != nil
    self.begun = nil
    containerTimes = nil
    seen = []
    rootListing = nil
    defer { intent = nil }
    guard let fd = try? Syscalls.openFile(begun.store.pendingPath, [.readOnly, .directory]) else { return }
    defer { Syscalls.closeFile(fd) }
    let marker = RawName("\(begun.id).start")
    if swapped, let undone, let intent,
      let file = try? Syscalls.openFile(
        begun.store.pendingPath.appending(marker.string), [.writeOnly, .append, .noFollow])
    {
      let line = SaveIntent.Undone(
        modification: undone.container.modificationTime, change: undone.container.changeTime,
        entry: undone.entry.map(PendingVersion.Seen.init))
      try? StoreFiles.write(intent.undoneLines(line), to: file)
      Syscalls.closeFile(file)
    }
    if (try? Syscalls.rename(from: fd, marker, to: fd, RawName("\(begun.id)" + VersionStore.abandonedSuffix))) == nil {
      try? Syscalls.unlink(in: fd, marker, directory: false)
    }
  }

  /// - Parameter pendingFD: `pending/`, open since the replaced tree was moved in, if it was: a record that must go
  ///   is removed through it, from the store that tree went to even if the store was moved since (with its
  ///   package, to another folder), where removing it by path would leave it naming a tree that is not there.
  private func record(changedPath: String, replaced: PendingVersion.Replaced, in pendingFD: CInt? = nil) throws {
    guard let begun else { return }
    let (store, id, start, root) = begun
    let pending = PendingVersion(
      id: id, start: start, rootPermissions: root.permissions, rootTime: root.modificationTime,
      changed: changedPath, replaced: replaced, keepLast: keepLast, containerTimes: containerTimes, seen: seen,
      rootListing: rootListing)
    let path = store.pendingPath.appending(String(id))
    do { try StoreFiles.writeAtomically(pending.encoded(), to: path, temporary: store.pendingPath) } catch {
      // Renamed in, and then the folder's flush failed: the save swaps back, so the record must go (it
      // would name a version whose replaced tree is back in the package, where the renames moved its times).
      if let pendingFD {
        try? Syscalls.unlink(in: pendingFD, RawName(String(id)), directory: false)
      } else {
        try? Syscalls.unlink(path)
      }
      throw error
    }
    store.noteRecorded(id)
    self.begun = nil
    containerTimes = nil
    seen = []
    rootListing = nil
    intent = nil
    try? Syscalls.unlink(store.pendingPath.appending("\(id).start"))
    Self.waitForClock(after: start, in: store.pendingPath)
  }

  /// The names in the package's root (see ``PendingVersion/rootListing``), without the save's own temporary
  /// entries; nil when it cannot be listed or holds more than ``PendingVersion/rootListingLimit`` entries.
  private static func rootListing(of packagePath: FilePath) -> [String]? {
    guard let fd = try? Syscalls.openFile(packagePath, [.readOnly, .directory, .noFollow]) else { return nil }
    defer { Syscalls.closeFile(fd) }
    guard let entries = try? Syscalls.entries(ofDirectory: fd, atMost: PendingVersion.rootListingLimit) else {
      return nil
    }
    return entries.map(\.name.text).filter { !SiblingNames.isSiblingEntry($0) }.sorted { $0.utf8Precedes($1) }
  }

  /// Returns once a file made now in `directory` gets a modification time after `start`.
  static func waitForClock(after start: FileTime, in directory: FilePath) {
    let probe = directory.appending("clock-\(Syscalls.processID)")
    for _ in 0..<1000 {
      guard let fd = try? Syscalls.openFile(probe, [.writeOnly, .create, .truncate, .noFollow], mode: 0o644) else {
        return
      }
      try? Syscalls.setModificationTimeToNow(fd)
      let now = try? Syscalls.status(of: fd).modificationTime
      Syscalls.closeFile(fd)
      if let now, now > start { break }
      Syscalls.pause(microseconds: 500)
    }
    try? Syscalls.unlink(probe)
  }
}
