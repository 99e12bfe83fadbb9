import SystemPackage

extension DeferredKeeping {
  /// Under the package lock, before recovery removes the temporary tree: completes the pending
  /// record of a deferred save killed between its swap and its record, from the intent in its
  /// capture marker (``SaveIntent``), and marks a save killed before its swap abandoned.
  ///
  /// For each `ID.start` with an intent and no record:
  /// - an exchange whose replaced subtree is still at the temporary name (it is not the tree the
  ///   save built, which the intent identifies): the subtree is moved to `ID.old`, then recorded;
  /// - an exchange whose replaced subtree is in `ID.old` already: recorded;
  /// - anything else (the swap did not happen, or was undone; or an addition, see below): the
  ///   marker becomes `ID.abandoned`.
  ///
  /// The record's capture time is the marker's modification time, as the save's would have been;
  /// the container's times are left out (the settle then trusts nothing of that directory's
  /// entries it cannot see). Best effort: what cannot be completed is left as before, for the
  /// recovery to remove.
  /// - Returns: The ids of the pending versions recorded.
  static func completeInterruptedSaves(_ names: SiblingNames, parentFD: CInt) -> [Int] {
    guard let storeFD = try? Syscalls.openDirectory(in: parentFD, names.versions) else { return [] }
    defer { Syscalls.closeFile(storeFD) }
    guard let pendingFD = try? Syscalls.openDirectory(in: storeFD, RawName("pending")) else { return [] }
    defer { Syscalls.closeFile(pendingFD) }
    guard let listed = try? Syscalls.entries(ofDirectory: pendingFD).map(\.name.string) else { return [] }
    let present = Set(listed)
    let pendingPath = names.path(names.versions).appending("pending")
    var recorded: [Int] = []
    for name in listed where name.hasSuffix(".start") {
      guard let id = Int(name.dropLast(".start".count)) else { continue }  // `saving.start`: removed by the next save
      let marker = RawName(name)
      if present.contains(String(id)) {
        // Recorded already, killed before the marker's removal.
        try? Syscalls.unlink(in: pendingFD, marker, directory: false)
        continue
      }
      guard let data = try? StoreFiles.read(pendingPath.appending(name)), let intent = SaveIntent(data),
        let start = try? Syscalls.status(in: pendingFD, marker).modificationTime
      else { continue }  // no intent (an earlier release's marker): the next save removes it
      let old = RawName("\(id).old")
      var complete = false
      switch intent.replaced {
      case .kept:
        if present.contains(old.string) {
          complete = true
        } else if let temporary = try? Syscalls.status(in: parentFD, names.temporary),
          [temporary.device, temporary.inode] != intent.newTree
        {
          complete = (try? Syscalls.rename(from: parentFD, names.temporary, to: pendingFD, old)) != nil
        }
      case .absent, .lost:
        // An addition's record would say only that the previous state had no entry there; without
        // the container's times around the rename (which a kill loses), the settle cannot rule out
        // another program's removal of an entry of that name, and would name it as not kept. No
        // version is better than a version flagged damaged for what it never held.
        break
      }
      if complete,
        (try? StoreFiles.writeAtomically(
          intent.record(id: id, start: start).encoded(), to: pendingPath.appending(String(id)), temporary: pendingPath))
          != nil
      {
        try? Syscalls.unlink(in: pendingFD, marker, directory: false)
        recorded.append(id)
      } else {
        try? Syscalls.rename(from: pendingFD, marker, to: pendingFD, RawName("\(id).abandoned"))
      }
    }
    return recorded
  }
}
