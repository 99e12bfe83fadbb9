import SystemPackage

extension DeferredKeeping {
  /// Whether the store of the package `names` name holds the capture marker of a save with no record yet
  /// (`ID.start` without `ID`, with an intent: an empty one is left for the next save to remove): a save at
  /// work, or one killed between its swap and its record, which ``completeInterruptedSaves(_:parentFD:)``
  /// completes. One listing of `pending/`.
  static func hasUnrecordedCapture(_ names: SiblingNames) -> Bool {
    guard
      let pendingFD = try? Syscalls.openFile(names.path(names.versions).appending("pending"), [.readOnly, .directory])
    else { return false }
    defer { Syscalls.closeFile(pendingFD) }
    guard let listed = try? Syscalls.entries(ofDirectory: pendingFD).map(\.name.string) else { return false }
    let present = Set(listed)
    return listed.contains { name in
      guard let id = captureID(name) else { return false }
      return !present.contains(String(id)) && (try? Syscalls.status(in: pendingFD, RawName(name)))?.size ?? 0 > 0
    }
  }

  /// The save id of a capture marker's name (`ID.start`); nil for any other name (`saving.start` included).
  private static func captureID(_ name: String) -> Int? {
    name.hasSuffix(".start") ? Int(name.dropLast(".start".count)) : nil
  }

  /// Under the package lock, before recovery removes the temporary tree: completes the pending
  /// record of a deferred save killed between its swap and its record, from the intent in its
  /// capture marker (``SaveIntent``), and marks a save killed before its swap abandoned.
  ///
  /// For each `ID.start` with an intent and no record:
  /// - an exchange whose replaced subtree is still at the temporary name (it is not the tree the
  ///   save built, which the intent identifies): the subtree is moved to `ID.old`, then recorded;
  ///   likewise a removal's entry renamed out to the temporary name (the save built nothing, so
  ///   whatever is there is that entry: the save removed any leftover before its capture);
  /// - an exchange whose replaced subtree is in `ID.old` already: recorded;
  /// - an addition whose entry at its name is the tree the save built (the rename happened):
  ///   recorded as absent from the previous state. Without the record, the pending versions before
  ///   it would find an entry no save accounts for, and name everything in it as not kept;
  /// - anything else (the swap did not happen, or was undone (the marker says so, or the new tree is
  ///   back at the temporary name), or the marker has no capture time:
  ///   the save was killed before its capture was complete): the marker becomes `ID.abandoned`.
  ///
  /// The record is ``SaveIntent/record(id:after:)``: the capture time and `seen` lines the save's would
  /// have had, and the container's times before the rename, and after it when the marker has them or the
  /// container shows them still (`timesLeft(renaming:_:_:)`); else the kill lost them.
  ///
  /// A marker that is not believed (``SaveIntent/Reading/damaged(_:)``: damaged, edited by hand, or
  /// an earlier release's without checks) completes nothing: whatever is at the temporary name (the
  /// tree the save built, or the subtree it replaced: only the marker could tell) is moved to `ID.old`
  /// and the marker becomes `ID`, a damaged pending record. So `check` and `versions list` name it,
  /// no settle reads it (the versions before it read the package there, whose times name what the
  /// save changed as not kept), and the files are left for whoever repairs it.
  /// Best effort: what cannot be completed is left as before, for the recovery to remove.
  /// - Returns: The ids of the pending versions recorded, and of those kept as damaged.
  static func completeInterruptedSaves(_ names: SiblingNames, parentFD: CInt) -> (recorded: [Int], damaged: [Int]) {
    guard let storeFD = try? Syscalls.openDirectory(in: parentFD, names.versions) else { return ([], []) }
    defer { Syscalls.closeFile(storeFD) }
    guard let pendingFD = try? Syscalls.openDirectory(in: storeFD, RawName("pending")) else { return ([], []) }
    defer { Syscalls.closeFile(pendingFD) }
    guard let listed = try? Syscalls.entries(ofDirectory: pendingFD).map(\.name.string) else { return ([], []) }
    let present = Set(listed)
    let pendingPath = names.path(names.versions).appending("pending")
    var recorded: [Int] = []
    var damaged: [Int] = []
    for name in listed {
      guard let id = captureID(name) else { continue }  // `saving.start`: removed by the next save
      let marker = RawName(name)
      if present.contains(String(id)) {
        // Recorded already, killed before the marker's removal.
        try? Syscalls.unlink(in: pendingFD, marker, directory: false)
        continue
      }
      guard let data = try? StoreFiles.read(pendingPath.appending(name)) else { continue }
      let old = RawName("\(id).old")
      let intent: SaveIntent
      switch SaveIntent.read(data) {
      case .intent(let read): intent = read
      case .empty: continue  // no intent: the next save removes the marker
      case .damaged:
        if !present.contains(old.string), (try? Syscalls.status(in: parentFD, names.temporary)) != nil {
          try? Syscalls.rename(from: parentFD, names.temporary, to: pendingFD, old)
        }
        if (try? Syscalls.rename(from: pendingFD, marker, to: pendingFD, RawName(String(id)))) != nil {
          damaged.append(id)
        }
        continue
      }
      var complete = false
      var after: PendingVersion.ContainerTimes.Times?
      switch intent.undone == nil ? intent.replaced : .lost {  // swapped back: nothing to complete
      case .kept:
        if present.contains(old.string) {
          complete = true
        } else if let temporary = try? Syscalls.status(in: parentFD, names.temporary),
          [temporary.device, temporary.inode] != intent.newTree
        {
          after = timesLeft(renaming: temporary, intent, names)
          complete = (try? Syscalls.rename(from: parentFD, names.temporary, to: pendingFD, old)) != nil
        }
      case .absent:
        // Saves add root entries only (`RootEntryChange`).
        if !intent.changed.isEmpty, !intent.changed.contains("/"),
          let packageFD = try? Syscalls.openDirectory(in: parentFD, names.package)
        {
          let added = try? Syscalls.status(in: packageFD, RawName(text: intent.changed))
          Syscalls.closeFile(packageFD)
          complete = added.map { [$0.device, $0.inode] == intent.newTree } ?? false
          if complete, let added { after = timesLeft(renaming: added, intent, names) }
        }
      case .lost: break
      }
      if complete, let record = intent.record(id: id, after: after),
        (try? StoreFiles.writeAtomically(
          record.encoded(), to: pendingPath.appending(String(id)), temporary: pendingPath))
          != nil
      {
        try? Syscalls.unlink(in: pendingFD, marker, directory: false)
        recorded.append(id)
      } else {
        try? Syscalls.rename(from: pendingFD, marker, to: pendingFD, RawName("\(id)" + VersionStore.abandonedSuffix))
      }
    }
    return (recorded, damaged)
  }

  /// The times the killed save's rename left the directory it renamed in with, when nothing has changed that
  /// directory since: the rename gave the directory its modification and change times and the entry it moved
  /// (`moved`, at the temporary name or at its new name) its change time from one reading of the clock, and
  /// a later change would have moved the directory's on. So the directory's times still being the entry's
  /// change time (its modification time alone for the root, whose change time a rename of the package moves)
  /// are the times after the rename, and the chain of our renames in it holds through this save
  /// (``PendingStateWalk``); nil when they are not, or cannot be read. Without them, an entry a later save
  /// added there was named not kept in this save's version (outsider attack 3 on issue 35, F1).
  private static func timesLeft(
    renaming moved: FileStatus, _ intent: SaveIntent, _ names: SiblingNames
  ) -> PendingVersion.ContainerTimes.Times? {
    guard intent.beforeSwap != nil, !intent.changed.isEmpty else { return nil }
    let folder = FilePath(intent.changed).removingLastComponent()
    let path = folder.isEmpty ? names.path(names.package) : names.path(names.package).pushing(folder)
    guard let container = try? Syscalls.statusNoFollow(path), container.kind == .directory,
      container.modificationTime == moved.changeTime,
      folder.isEmpty || container.changeTime == moved.changeTime
    else { return nil }
    return (container.modificationTime, container.changeTime)
  }
}
