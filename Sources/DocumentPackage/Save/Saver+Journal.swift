import SystemPackage

extension Saver {
  /// Saves `root` by journal (``SaveJournal``), for a file system whose ``FileSystemTraits`` call
  /// for it: stage what is new, keep the previous state, commit the plan, apply it, remove the journal.
  ///
  /// A failure before the plan is committed removes the journal and leaves the package as it was.
  /// Once committed, the save completes: if applying fails (a full disk, a lost device), the error
  /// says so, and the next recovery (any open or save, or `docpkg check`) applies the rest.
  /// - Parameter rebasing: Point the model at the saved package afterwards (not for save-to).
  mutating func saveByJournal(rebasing: Bool) throws {
    let parentFD = try Self.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    let journalPath = names.path(names.journal)
    func discard() { try? TreeRemoval.remove(names.journal, in: parentFD) }
    let journalFD: CInt
    // A committed plan at this name is a save recovery left for the directory it was made for (renamed, moved or
    // deleted since, ``SaveJournal/ownJournalOwner(_:parentFD:)``): the one way to complete that package,
    // never a leftover (outsider attack on issue 35, R2-2: a put into a folder made at the old name removed it).
    if SaveJournal.hasPlan(names.journal, parentFD: parentFD) == true {
      throw PackageError(
        .corrupt, "cannot save: an unfinished save made for another directory waits in", path: journalPath.string,
        context:
          "(the package it was made for was renamed, moved or deleted: `docpkg check` on this package says what to do)")
    }
    do {
      try TreeRemoval.remove(names.journal, in: parentFD)  // a leftover only if recovery was skipped
      try Syscalls.makeDirectory(in: parentFD, names.journal)
      journalFD = try Syscalls.openDirectory(in: parentFD, names.journal)
    } catch {
      throw PackageError.io(error, "cannot create directory", path: journalPath.string, context: "while saving")
    }
    defer { Syscalls.closeFile(journalFD) }
    // Whose journal this is, for a package renamed before recovery completes it (`SaveJournal+Moved`):
    // the root as it is now, and again at the commit if it changed meanwhile.
    var recordedRoot = try? Syscalls.status(in: parentFD, names.package)
    if let root = recordedRoot, root.kind == .directory {
      do { try SaveJournal.recordRoot(root, journalPath: journalPath) } catch {
        discard()
        throw error
      }
    } else {
      recordedRoot = nil
    }
    var journal = SaveJournal(names: names)
    let builder = TreeBuilder(packagePath: target)
    do {
      try journal.plan(root, target: target, parentFD: parentFD, journalFD: journalFD, builder: builder)
      try builder.step("flush file system of", "") { () throws(Errno) in
        try builder.durability.complete(through: journalFD)
        try Syscalls.synchronize(journalFD)
      }
    } catch {
      discard()
      throw error
    }
    if journal.steps.isEmpty {
      discard()
      if rebasing { rebaseOnTarget() }
      return
    }
    // The previous state is kept before anything changes, and copied: the journal replaces files
    // one by one, so there is no replaced subtree to move into the store afterwards.
    versions?.copyBeforeSwap(notingCopyAt: journalPath.appending(SaveJournal.copiedVersionName.string))
    let readers: ReaderExclusion
    // The package's root, opened before the plan is committed: the plan is applied below it, so a
    // package renamed or moved while the save runs is the one completed (no package yet: nil).
    var rootFD: CInt?
    defer { if let rootFD { Syscalls.closeFile(rootFD) } }
    let createsPackage = journal.steps.contains {
      if case .makeDirectory(let path) = $0 { path.isEmpty } else { false }
    }
    do {
      // An in-place save of a package that has versions: it was there when it was loaded, so a
      // plan that makes it anew means it was moved or deleted meanwhile.
      if createsPackage, versions?.hasStore == true {
        throw PackageError(
          .conflict, "cannot save: the package was moved or deleted while it was saved:", path: target.string,
          context: "(nothing was changed)")
      }
      if !createsPackage {
        // The package the plan was made for: still at its name, the directory it was loaded from.
        let opened = try? Syscalls.openDirectory(in: parentFD, names.package)
        rootFD = opened
        let status = opened.flatMap { try? Syscalls.status(of: $0) }
        let loaded = expectedRoot  // an in-place save: loaded from here (or a restore's, read before)
        let now = opened.flatMap { RootIdentity.of($0) }
        guard let status, let now, loaded.map({ now.isSame(as: $0) }) ?? true else {
          throw PackageError(
            .conflict, "cannot save: the package was moved, replaced or deleted while it was saved:",
            path: target.string, context: "(nothing was changed)")
        }
        if recordedRoot.map({ [$0.device, $0.inode] != [status.device, status.inode] }) ?? true {
          try SaveJournal.recordRoot(status, journalPath: journalPath)
        }
        if let opened {
          try SaveJournal.recordRootNames(
            rootFD: opened, packagePath: target, born: Syscalls.birthTime(in: parentFD, names.package),
            journalPath: journalPath)
        }
        try keepPreviousState(changing: "", adding: false)
      } else {
        try Task.checkCancellation()
      }
      readers = try ReaderExclusion(names)
      try AtomicFile.write(to: journalPath.appending(SaveJournal.planName.string), label: "plan") { fd in
        let plan = journal.encodedPlan()
        let written = plan.withUnsafeBytes { bytes in Result { () throws(Errno) in try Syscalls.writeAll(fd, bytes) } }
        do throws(Errno) { try written.get() } catch {
          throw PackageError.io(error, "cannot write", path: journalPath.string, context: "while saving")
        }
      }
    } catch {
      discard()
      versions?.abandon(undone: nil)
      throw error
    }
    defer { readers.end() }
    for case .place(let number, _) in journal.steps {
      OwnSaves.shared.willPlace(
        journalPath.appending(SaveJournal.stagedName(number).string), package: target, owner: owner)
    }
    do {
      try journal.apply(parentFD: parentFD, journalFD: journalFD, packagePath: target, rootFD: rootFD)
    } catch var error as PackageError {
      error.context += " (the save is committed: the next open or `docpkg check` completes it)"
      throw error
    }
    SaveJournal.finish(names, parentFD: parentFD)
    if rebasing { rebaseOnTarget() }
  }
}

extension SaveJournal {
  /// The committed journaled save beside the package (its plan and its staged files' digests), `nil` if there is
  /// none (the save never committed).
  /// - Throws: ``PackageError`` if the plan cannot be read, or is damaged: nothing is then applied.
  static func committed(_ names: SiblingNames, parentFD: CInt) throws -> SaveJournal? {
    let path = names.path(names.journal).appending(planName.string)
    let read: [UInt8]?
    do {
      let journalFD = try Syscalls.openDirectory(in: parentFD, names.journal)
      defer { Syscalls.closeFile(journalFD) }
      read = try planBytes(in: journalFD)
    } catch {
      throw PackageError.io(error, "cannot recover interrupted save: cannot read", path: path.string)
    }
    guard let bytes = read else { return nil }
    guard let plan = decodePlan(bytes) else {
      throw PackageError(
        .corrupt, "cannot recover interrupted save: its plan is damaged:", path: path.string,
        context: "(the package may be part old, part new; its previous state is in its versions)")
    }
    return SaveJournal(names: names, steps: plan.steps, staged: plan.staged)
  }

  /// The bytes of the plan in the journal folder open as `journalFD`; nil when it holds none (never committed).
  static func planBytes(in journalFD: CInt) throws(Errno) -> [UInt8]? {
    guard try Syscalls.exists(in: journalFD, planName) else { return nil }
    let fd = try Syscalls.openForReading(in: journalFD, planName)
    defer { Syscalls.closeFile(fd) }
    return try Syscalls.readBytes(fd, at: 0, count: Int(try Syscalls.status(of: fd).size))
  }

  /// Applies a committed plan again, in recovery, keeping what another program changed since the plan was
  /// committed (the plan's modification time; see ``apply(parentFD:journalFD:packagePath:rootFD:editsAfter:)``),
  /// when the package is the directory the save began in (its root as the journal records it). In another one (a
  /// copy, or a root a remount renumbered) every file's time is the copy's, which tells nothing: the plan is
  /// applied whole, and the package ends new.
  /// - Returns: Each file kept so (see ``apply(parentFD:journalFD:packagePath:rootFD:editsAfter:)``).
  @discardableResult
  func applyJournal(parentFD: CInt) throws -> [(path: FilePath, setAside: Bool)] {
    let journalFD: CInt
    do { journalFD = try Syscalls.openDirectory(in: parentFD, names.journal) } catch {
      throw PackageError.io(
        error, "cannot recover interrupted save: cannot open", path: names.path(names.journal).string)
    }
    defer { Syscalls.closeFile(journalFD) }
    let root = try? Syscalls.status(in: parentFD, names.package)
    let sameRoot =
      root != nil && Self.recordedRoot(of: names.journal, parentFD: parentFD) == root.map { [$0.device, $0.inode] }
    let committed = sameRoot ? (try? Syscalls.status(in: journalFD, Self.planName))?.modificationTime : nil
    return try apply(
      parentFD: parentFD, journalFD: journalFD, packagePath: names.path(names.package), editsAfter: committed,
      checkingStaged: true)
  }

  /// Removes the journal of an applied plan: the plan first (the save is no longer to be completed),
  /// then the folder; makes that durable. Best effort: a journal left behind is applied again,
  /// harmlessly, by the next recovery.
  static func finish(_ names: SiblingNames, parentFD: CInt) {
    if let journalFD = try? Syscalls.openDirectory(in: parentFD, names.journal) {
      // The note of the version copied before the plan goes first, and durably: a journal found without its plan
      // is one never committed, whose copy recovery takes back (``ReplacedStateKeeper/takeBackCopy(notedAt:_:)``);
      // a save killed between the two removals is applied again, which changes nothing.
      if (try? Syscalls.unlink(in: journalFD, copiedVersionName, directory: false)) != nil {
        try? Syscalls.synchronize(journalFD)
      }
      try? Syscalls.unlink(in: journalFD, planName, directory: false)
      try? Syscalls.synchronize(journalFD)
      Syscalls.closeFile(journalFD)
    }
    try? TreeRemoval.remove(names.journal, in: parentFD)
    try? Syscalls.synchronize(parentFD)
  }
}
