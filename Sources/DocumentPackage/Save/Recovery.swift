import SystemPackage

/// What recovery did to settle an interrupted save; see ``PackageFile/recover(at:)``.
public struct RecoveryAction: Hashable, Sendable, CustomStringConvertible {
  /// What was done, in words.
  public var description: String
  /// The leftover it was done to, beside the package.
  public var path: String
}

/// Settles whatever an interrupted save left beside a package, so that the package is exactly
/// the old one or exactly the new one (see ``SiblingNames`` for the names):
///
/// - a journal (``SaveJournal``) with its plan is a committed save: the plan is applied again and the
///   journal removed; without a plan, the save never began changing the package: it is removed, and the
///   version the save copied of the package before its plan (if it got that far) taken back by the keeper. A
///   journal left beside the package's old name (renamed after the save was killed) is taken first,
///   and so are the temporary tree and lock file a killed save left there (``MovedLeftovers``).
/// - a save killed after its swap and before it handed the replaced tree to its keeper: the keeper
///   finishes it (``ReplacedStateKeeper/completeInterruptedSaves(_:parentFD:)``: the version store
///   moves the tree in and completes its pending record).
/// - the package is there: every other leftover is garbage — a temporary tree is a new tree (or a new
///   root entry, see `RootEntryChange`) that was never swapped or renamed in, or the old tree
///   (or replaced root entry) after the swap; a `ready` tree was never moved in; a
///   sideline is the old package after the new one was moved in. All are removed.
/// - the package is missing (the fallback protocol was cut between its two renames): a `ready`
///   tree is complete and synced, so it is moved in (the save is completed); otherwise the
///   sideline is moved back (the save is undone). A temporary tree is never moved in: it may be
///   incomplete.
///
/// Must run with the package's lock held, so that no save is under way.
enum Recovery {
  /// - Parameter keeper: Who keeps the states saves replace (``ReplacedStateKeeper``), told first
  ///   of what killed saves left for it.
  static func recover(
    _ names: SiblingNames, parentFD: CInt, keeper: (any ReplacedStateKeeper.Type)?
  ) throws -> [RecoveryAction] {
    var actions: [RecoveryAction] = []
    func action(_ what: String, _ name: RawName) {
      actions.append(RecoveryAction(description: what, path: names.path(name).string))
    }
    func check(_ body: () throws(Errno) -> Void, _ what: String, _ name: RawName) throws {
      do { try body() } catch {
        throw PackageError.io(error, "cannot recover interrupted save: cannot \(what)", path: names.path(name).string)
      }
    }
    func exists(_ name: RawName) throws -> Bool {
      var result = false
      try check({ () throws(Errno) in result = try TreeRemoval.exists(name, in: parentFD) }, "read status of", name)
      return result
    }
    func remove(_ name: RawName, _ what: String) throws {
      guard try exists(name) else { return }
      try check({ () throws(Errno) in try TreeRemoval.remove(name, in: parentFD) }, "remove", name)
      action(what, name)
    }
    func moveIn(_ name: RawName, _ what: String) throws {
      try check(
        { () throws(Errno) in
          try Syscalls.rename(from: parentFD, name, to: parentFD, names.package)
          try Syscalls.synchronize(parentFD)
        }, "rename", name)
      action(what, name)
    }

    actions += MovedLeftovers.adopt(names, parentFD: parentFD)
    if let moved = SaveJournal.adoptMovedJournal(names, parentFD: parentFD) {
      actions.append(
        RecoveryAction(
          description: "found the journal of an interrupted save under the package's old name: took it from",
          path: moved.string))
    }
    // A journal made for another directory (the package renamed, and this one given its old name; or moved away or
    // deleted, and this one made at its name) is left to it: `docpkg check` names it (``StrandedSave``).
    if try exists(names.journal), SaveJournal.ownJournalOwner(names, parentFD: parentFD) == .thisPackage {
      // A journaled save (`SaveJournal`): committed if its plan is there, else never begun.
      if let journal = try SaveJournal.committed(names, parentFD: parentFD) {
        let kept = try journal.applyJournal(parentFD: parentFD)
        SaveJournal.finish(names, parentFD: parentFD)
        action("completed an interrupted save: applied its journal", names.journal)
        for (path, setAside) in kept {
          let description =
            setAside
            ? "another program changed a file after the interrupted save, and its edit stays; what the save would "
              + "have put there is kept at"
            : "another program changed a file the interrupted save removes, and it stays:"
          actions.append(RecoveryAction(description: description, path: path.string))
        }
      } else {
        let marker = names.path(names.journal).appending(SaveJournal.copiedVersionName.string)
        if let keeper { actions += keeper.takeBackCopy(notedAt: marker, names) }
        try remove(names.journal, "removed the staged files of an interrupted save:")
      }
    }
    try remove(names.probe, "removed what a save left trying the file system:")
    if try !exists(names.package) {
      if try exists(names.ready) {
        try moveIn(names.ready, "completed an interrupted save: moved the saved package in from")
      } else if try exists(names.sideline) {
        try moveIn(names.sideline, "undid an interrupted save: moved the previous package back from")
      }
    }
    // What a save swapped out before it was killed may be the keeper's, not a leftover.
    if let keeper { actions += keeper.completeInterruptedSaves(names, parentFD: parentFD) }
    let removed = keeper?.willRemoveLeftovers(
      [names.temporary, names.ready, names.sideline], names, parentFD: parentFD)
    defer { removed?() }
    try remove(names.temporary, "removed the temporary tree of an interrupted save:")
    try remove(names.ready, "removed the unused new tree of an interrupted save:")
    try remove(names.sideline, "removed the previous package left by a completed save:")
    return actions
  }
}
