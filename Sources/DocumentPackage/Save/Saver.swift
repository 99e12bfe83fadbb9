import SystemPackage

/// The save sequence. The caller holds the lock of `target` and has run recovery.
///
/// **Incremental, in place** (``saveInPlace()``): find the smallest changed subtree D
/// (``PackageNode/changeRoot``); build D's new state as `.NAME.docpkg-tmp` beside the package
/// (``TreeBuilder``: hard links for unchanged files, writes for changed ones); make it durable
/// (``DurabilityPlan``); tell the ``ReplacedStateKeeper`` (the version store: the app's hook, then the
/// previous state kept, or its capture begun); `renameat2(RENAME_EXCHANGE)` it with D; fsync both
/// directories; hand the old D (now at the temporary name) to the keeper, or remove it; re-base the model.
///
/// **One root entry** added or replaced, nothing else at the root (`RootEntryChange`): D would
/// be the root, whose rebuild relinks every file of the package; instead the entry alone is built
/// at the temporary name and renamed into the live root (`RENAME_NOREPLACE` for a new name, the
/// exchange above for a replaced one), one atomic step like the exchange of any other D.
///
/// **Whole package** (``saveWhole(rebasing:)``, also save-as and save-to): the same with D = the
/// package root.
///
/// **By journal** (``saveByJournal(rebasing:)``, ``SaveJournal``), where the file system cannot
/// exchange (FAT, exFAT, sshfs; an overlay's lower layer refuses it only when tried) or the
/// ``FileSystemTraits`` say a tree built beside the package could not be moved in: new and changed
/// files are staged beside the package, a plan is committed, and the package is changed in place,
/// file by file; never a directory renamed.
///
/// A new root carries the package's identity (``PackageIdentity``, an extended attribute), rebound
/// to the new root's inode, so that ``PackageReference``s keep finding the package.
///
/// The swap (exchange or renames, and the fsyncs that make it final) is done holding a
/// ``ReaderExclusion``: it waits for coordinated readers (``PackageReadLock``) to leave, for at
/// most ``PackageReadLock/writerWaitLimit``, and keeps new ones out until the swap is final.
///
/// Before the swap, the new subtree's inode is told to ``OwnSaves``, with what the build carried
/// from disk into directories the model never listed (``CarriedEntries``), so that a
/// ``PackageMonitor`` in this process can tell this save from other programs' changes.
///
/// **Other programs' entries.** Just before its commit point, an in-place save runs ``beforeCommit``
/// (``PackageFile`` checks there that nothing the model loaded changed on disk while the save built);
/// after a swap that replaced a subtree, and before that subtree goes to the keeper or is removed,
/// ``ReplacedTreeSweep`` moves into the new tree what other programs made in the rebuilt folders
/// after the save listed them (``sweepsReplaced``).
///
/// A save that re-bases the model tells the tree's ``TreeRecorder`` (the undo layer, when one is
/// installed) before it starts and after it succeeded, so undo keeps working across saves
/// without the caller's help.
///
/// **Cancellation.** A save whose task is cancelled stops with `CancellationError` while it builds
/// the new state (checked before each entry) and, at the latest, just before its commit point:
/// after the app's ``PackageFile/willReplacePreviousState`` hook and before the version store is
/// told (``keepPreviousState(changing:adding:)``; for a new package, before its rename; by journal, before the
/// plan is committed). It then fails as below, leaving the package untouched. From the commit
/// point on, cancellation is not looked at: the swap (or the journal's steps), its fsyncs and
/// the keeping of the previous state complete, and the save succeeds.
///
/// Every save that renames goes through one sequence (``beginSwap(changing:_:replacing:parentFD:)``, then
/// ``swapIn(_:parentFD:readers:leaving:)``): one ``Swap`` (the one rename, and the one that undoes it), and
/// one way back (``rollBack(_:parentFD:swapTime:after:keepingBuilt:keptError:)``). An exchange the file
/// system refuses turns the save to the journal in one place (``turnToJournal(_:)``).
/// A failure before the swap (the version store told or not) removes the temporary tree, the keeper
/// abandons what it began, and the package is untouched; a failed fsync after the swap swaps back, and so
/// does a replaced subtree the keeper cannot take (the version store cannot move it in, or cannot write its
/// record), and a swap into a directory that is not the package loaded: a save never reports success for a
/// version it promised and could not keep.
/// After a crash at any point, ``Recovery`` leaves the old or the new package.
struct Saver {
  let target: FilePath
  let names: SiblingNames
  let root: PackageNode
  /// Who keeps the state this save replaces (the version store, for an in-place save of a
  /// ``PackageFile``; nil for save-as, save-to and writes of a tree), told as ``ReplacedStateKeeper`` says.
  /// Set for every in-place save, versions kept or not (``VersionPolicy/none`` keeps none): so it
  /// also says that the save is in place (``isInPlace``).
  var versions: (any ReplacedStateKeeper)?
  /// Whether this save replaces the package its model was loaded from (see ``versions``): the
  /// package's root is then held and checked around the swap (``LoadedRootHold``), whatever the
  /// version policy.
  var isInPlace: Bool { versions != nil }
  /// The root an in-place save replaces when its tree was not loaded from it (a restored version's tree): read
  /// under the lock before the save, and held and checked as a loaded root is.
  var replacedRoot: RootIdentity?
  /// The root the swap must replace: the one the model was loaded from, or ``replacedRoot``.
  var expectedRoot: RootIdentity? { isInPlace ? root.loadedRootIdentity ?? replacedRoot : nil }
  var exchangeUnsupported = false
  /// Who saves, told to ``OwnSaves`` with what it places (``PackageFile/saveOwner``).
  var owner: ObjectIdentifier?
  /// Whether `versions` was told of the swap already (a part save that fell back to a whole save tells it once).
  private var previousStateKept = false
  /// Called once the new state is built and durable, just before the commit point (before the app's
  /// hook and the version store are told), with the entry the save replaces (nil: the whole package):
  /// an in-place save checks there that nothing it rebuilds changed on disk while it built
  /// (``PackageFile``); what it throws fails the save, the package untouched.
  var beforeCommit: ((PackageNode?) throws -> Void)?
  /// Take back, after the swap, what another program made in the rebuilt folders after the save
  /// listed them (``ReplacedTreeSweep``): in-place saves that do not overwrite outside changes.
  var sweepsReplaced = false
  /// The folders the last build made from a listing of a folder of the package.
  private var listedDirectories: [TreeBuilder.ListedDirectory] = []
  /// The paths of the entries ``ReplacedTreeSweep`` took into the package, as they are named there.
  private(set) var sweptPaths: [String] = []
  /// The model's folders that gained entries so (their listings no longer hold everything).
  private(set) var sweptDirectories: [PackageNode] = []
  /// An in-place save's package root, held from its last check to its swap (``LoadedRootHold``).
  private var heldRoot: LoadedRootHold?
  /// For tests (``PackageFile/willSwapIn``): called after the last check, just before the rename
  /// that puts the new state in place (for a part save, before the folder it goes into is opened).
  var willSwapIn: (() -> Void)?
  /// For tests (``PackageFile/didSwapIn``): called once an in-place save's swap is complete, just before the model
  /// is pointed at what it saved.
  var didSwapIn: (() -> Void)?
  /// Where an in-place save found its package just after its swap, when another program had renamed or moved it
  /// in between (``followIfMoved(leaving:)``); nil: still at ``target``.
  private(set) var movedTo: FilePath?
  /// The root an in-place save left, held open since before its swap (a whole save's new root; else the loaded
  /// root): the package's wherever another program renames or moves it next (``PackageFile/rootLeftBySave``).
  private(set) var leftRoot: HeldDirectory?

  init(target: FilePath, root: PackageNode) throws {
    try root.listEverythingFromSources()  // a save writes the children a directory holds
    self.target = target
    self.names = try SiblingNames(of: target)
    self.root = root
  }

  /// Whether this save goes by journal, from what the package's file system can do. Where files
  /// may be copied up to other inodes (overlayfs), also drops the deferred keeping of the previous
  /// state: it tells the files the save left alone by their inodes, and a copy-up would make every
  /// one of them look replaced ("not kept"); the previous state is copied at the save instead.
  private mutating func savesByJournal() throws -> Bool {
    let parentFD = try Self.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    let traits = try FileSystemTraits.of(parentFD: parentFD, names: names)
    if traits.copiesUp { versions?.copyBeforeSwap(notingCopyAt: nil) }
    return traits.savesByJournal
  }

  static func openParent(_ names: SiblingNames) throws -> CInt {
    do { return try Syscalls.openFile(names.parent, [.readOnly, .directory]) } catch {
      throw PackageError.io(error, "cannot open directory", path: names.parent.string)
    }
  }

  /// Saves what changed in `root`, which was loaded from `target`.
  mutating func saveInPlace() throws {
    try root.checkNamesFit(savingTo: target)
    let recorder = root.treeRecorder
    recorder?.willSave()
    let byJournal = try exchangeUnsupported || savesByJournal()
    if !byJournal, let changed = root.changeRoot, let removal = EntryRemoval(changed), try saveRemoval(removal) {
      recorder?.didSave()
      return
    }
    try root.listDirectoriesWithRemovals()  // each save below builds directories from their listings
    if byJournal {
      try saveByJournal(rebasing: true)
    } else if let changed = root.changeRoot {
      var partSaved = false
      if changed === root {
        // One root entry added or replaced: renamed into the live root (see `RootEntryChange`).
        if let entry = RootEntryChange(root: root, target: target), entry.isNew || !exchangeUnsupported {
          partSaved = try savePart(entry.node, adding: entry.isNew, rebasingRoot: true)
        }
      } else if !exchangeUnsupported && changed.origin?.relativePath == FilePath(changed.path) {
        partSaved = try savePart(changed)
      }
      if !partSaved { try saveWholeTree(rebasing: true) }
    }
    recorder?.didSave()
  }

  /// Puts the new state of just `node` (not the root) in place: exchanged with the entry there, or, with
  /// `adding`, renamed in where its container has no entry of its name (``Swap``).
  /// - Parameters:
  ///   - node: The changed entry, built at the temporary name first.
  ///   - adding: Whether `node` is new in its container.
  ///   - rebasingRoot: Re-base the whole model afterwards (`node` is a root entry whose origin, if
  ///     any, may be elsewhere), rather than just `node`.
  /// - Returns: False when a directory cannot be exchanged here, having changed nothing.
  /// - Throws: ``PackageError`` naming the entry and the failed call; the package is then unchanged.
  private mutating func savePart(_ node: PackageNode, adding: Bool = false, rebasingRoot: Bool = false) throws -> Bool {
    let parentFD = try Self.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    let carried = try buildTemporary(node, parentFD: parentFD)
    OwnSaves.shared.willPlace(names.path(names.temporary), package: target, owner: owner, carried: carried)
    let containerPath = node.parent!.origin!.absolutePath
    // The path of the replaced (or, when adding, absent) entry in the previous state: a root
    // entry's model path may still be where it was loaded from.
    let changedPath = rebasingRoot ? node.diskName.text : node.diskPath
    let move: Swap.Move = adding ? .adding : .exchanging
    let readers = try beginSwap(changing: changedPath, move, replacing: node, parentFD: parentFD)
    defer { readers.end() }
    let containerFD: CInt
    do { containerFD = try Syscalls.openFile(containerPath, [.readOnly, .directory, .noFollow]) } catch {
      failBeforeSwap(parentFD)
      throw PackageError.io(error, "cannot open directory", path: containerPath.string)
    }
    defer { Syscalls.closeFile(containerFD) }
    let swap = Swap(
      containerFD: containerFD, containerPath: containerPath, name: node.diskName, move: move, changedPath: changedPath)
    guard try swapIn(swap, parentFD: parentFD, readers: readers) else { return false }
    if rebasingRoot { rebaseRoot() } else { finish(node) }
    return true
  }

  /// Removes one entry from a directory the model never listed, by renaming it out (see
  /// ``EntryRemoval``); a keeper that takes the replaced subtree takes the entry renamed out, and
  /// is told the directory's times around the rename, as for an exchange.
  /// - Returns: False when the entry is not in its directory on disk, having changed nothing: the
  ///   directory is then built anew, as the model has it.
  /// - Throws: ``PackageError`` naming the entry and the failed call; the package is then unchanged.
  private mutating func saveRemoval(_ removal: EntryRemoval) throws -> Bool {
    let directory = removal.directory
    let containerPath = directory.origin!.absolutePath
    let parentFD = try Self.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    do {
      try TreeRemoval.remove(names.temporary, in: parentFD)  // a leftover only if recovery was skipped
    } catch {
      throw PackageError.io(error, "cannot remove leftover", path: names.path(names.temporary).string)
    }
    let containerFD: CInt
    do { containerFD = try Syscalls.openFile(containerPath, [.readOnly, .directory, .noFollow]) } catch {
      throw PackageError.io(error, "cannot open directory", path: containerPath.string)
    }
    defer { Syscalls.closeFile(containerFD) }
    // Gone already (a save told to overwrite outside changes): the directory's rebuild says so.
    guard (try? Syscalls.exists(in: containerFD, removal.name)) == true else { return false }
    let readers = try beginSwap(changing: removal.changedPath, .removing, replacing: directory, parentFD: parentFD)
    defer { readers.end() }
    let swap = Swap(
      containerFD: containerFD, containerPath: containerPath, name: removal.name, move: .removing,
      changedPath: removal.changedPath)
    _ = try swapIn(swap, parentFD: parentFD, readers: readers)  // nothing exchanged: never refused
    if directory.parent == nil { rebaseRoot() } else { finish(directory) }
    return true
  }

  /// Builds all of `root` beside `target` and puts it in place of whatever is there.
  /// - Parameter rebasing: Point the model at the saved package afterwards (not for save-to).
  mutating func saveWhole(rebasing: Bool) throws {
    try root.listDirectoriesWithRemovals()
    try root.checkNamesFit(savingTo: target)
    let recorder = rebasing ? root.treeRecorder : nil
    recorder?.willSave()
    try saveWholeTree(rebasing: rebasing)
    recorder?.didSave()
  }

  private mutating func saveWholeTree(rebasing: Bool) throws {
    if try exchangeUnsupported || savesByJournal() { return try saveByJournal(rebasing: rebasing) }
    let parentFD = try Self.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    let carried = try buildTemporary(root, parentFD: parentFD)
    OwnSaves.shared.willPlace(names.path(names.temporary), package: target, owner: owner, carried: carried)
    let exists: Bool
    do { exists = try TreeRemoval.exists(names.package, in: parentFD) } catch {
      discardTemporary(parentFD)
      throw PackageError.io(error, "cannot read status of", path: target.string)
    }
    if !exists {
      // An in-place save (a keeper is told) of a package that is no longer at its name: moved or
      // deleted while the new state was built. A new package there would be a second one.
      if isInPlace {
        discardTemporary(parentFD)
        throw PackageError(
          .conflict, "cannot save: the package was moved or deleted while it was saved:", path: target.string,
          context: "(nothing was changed)")
      }
      do { try Task.checkCancellation() } catch {  // the last point a cancelled save stops at
        discardTemporary(parentFD)
        throw error
      }
      do {
        try Syscalls.rename(from: parentFD, names.temporary, to: parentFD, names.package)
      } catch {
        discardTemporary(parentFD)
        throw PackageError.io(error, "cannot rename new package into place:", path: target.string)
      }
      try flushDirectory(parentFD, names.parent)
    } else {
      let readers = try beginSwap(changing: "", .exchanging, replacing: nil, parentFD: parentFD)
      defer { readers.end() }
      // The new root, held from before the exchange: where the package is if it is renamed or moved right after.
      let leaving = (try? Syscalls.openDirectory(in: parentFD, names.temporary)).map {
        HeldDirectory(adopting: $0, path: names.path(names.temporary))
      }
      if let replaced = try? Syscalls.status(in: parentFD, names.package),
        let swappedIn = try? Syscalls.status(in: parentFD, names.temporary)
      {
        PackageLock.recordSwappedInRoot(replacing: replaced, with: swappedIn, names, parentFD: parentFD)
      }
      let swap = Swap(
        containerFD: parentFD, containerPath: names.parent, name: names.package, move: .exchanging, changedPath: "")
      guard try swapIn(swap, parentFD: parentFD, readers: readers, leaving: leaving) else {
        return try saveByJournal(rebasing: rebasing)
      }
    }
    if rebasing { rebaseOnTarget() }
  }

  /// Points the whole model at the package saved at `target` (or where it was found just after the swap).
  func rebaseOnTarget() {
    let old = root.origin?.location
    let destination = movedTo ?? target
    let location =
      old?.root == destination
      ? old! : PackageLocation(root: destination, verifiesLoads: old?.verifiesLoads ?? false)
    root.rebase(location: location, relativePath: FilePath(""))
    location.detachedNodes.removeAll()
  }

  /// Builds `node`'s new state at the temporary name and makes it durable; removes it again on failure.
  /// - Returns: What it carried from disk into directories the model never listed (for ``OwnSaves``).
  private mutating func buildTemporary(_ node: PackageNode, parentFD: CInt) throws -> CarriedEntries {
    do {
      try TreeRemoval.remove(names.temporary, in: parentFD)  // a leftover only if recovery was skipped
    } catch {
      throw PackageError.io(error, "cannot remove leftover", path: names.path(names.temporary).string)
    }
    // Building links the package's files (their change times move): a settle walking meanwhile must
    // know a save is under way (see `SaveSequence`).
    try versions?.willBuildNewState()
    let builder = TreeBuilder(packagePath: target)
    if let versions { builder.willLink = { versions.willLink($0) } }
    if node === root {
      builder.rootIdentity = PackageIdentity.carried(from: target)
      if isInPlace { builder.replacing = target }  // in place: what the model does not hold stays
    }
    do {
      try builder.build(node, in: parentFD, as: names.temporary, path: node === root ? "" : node.path)
      try builder.step("flush file system of", "") { () throws(Errno) in
        try builder.durability.complete(through: parentFD)
      }
    } catch {
      discardTemporary(parentFD)
      versions?.didBuildNewState()
      throw error
    }
    versions?.didBuildNewState()
    versions?.relinked(builder.relinked)
    listedDirectories = builder.listedDirectories
    return builder.carried
  }

  /// Tells `versions` that the previous state is about to be replaced (once per save): it keeps
  /// it now, or begins the capture it completes when handed the replaced subtree after the swap.
  /// - Parameters:
  ///   - changedPath: The entry the save exchanges or adds, relative to the package ("" for the
  ///     whole package, and for a journaled save, which changes the package in place).
  ///   - adding: Whether the save adds `changedPath` rather than exchanging it.
  ///   - replacing: The model's node of `changedPath` (the folder, for a removal), for ``beforeCommit``;
  ///     nil for the whole package.
  mutating func keepPreviousState(
    changing changedPath: String, adding: Bool, removing: Bool = false, replacing: PackageNode? = nil
  ) throws {
    guard !previousStateKept else { return }
    try beforeCommit?(replacing)
    if heldRoot == nil, let loaded = expectedRoot {
      heldRoot = try LoadedRootHold(path: target, loaded: loaded)
    }
    if let versions {
      try versions.willReplace(changing: changedPath, adding: adding, removing: removing, root: heldRoot?.identity)
    } else {
      try Task.checkCancellation()
    }
    previousStateKept = true
  }

  /// What every swap begins with, once the new state is built and durable: the previous state told to
  /// the keeper (``keepPreviousState(changing:adding:removing:replacing:)``, the commit point), coordinated
  /// readers kept out (``ReaderExclusion``), then the test hook ``willSwapIn``.
  /// - Returns: The readers' exclusion, to end once the swap is final.
  /// - Throws: What stopped the save; the new state is then removed and the keeper abandons what it began,
  ///   the package as it was.
  private mutating func beginSwap(
    changing changedPath: String, _ move: Swap.Move, replacing node: PackageNode?, parentFD: CInt
  ) throws -> ReaderExclusion {
    let readers: ReaderExclusion
    do {
      try keepPreviousState(
        changing: changedPath, adding: move == .adding, removing: move == .removing, replacing: node)
      readers = try ReaderExclusion(names)
    } catch {
      failBeforeSwap(parentFD)
      throw error
    }
    willSwapIn?()
    return readers
  }

  /// The swap of every save that renames (a part, an entry removed, the whole package), once
  /// ``beginSwap(changing:_:replacing:parentFD:)`` let it: the keeper told the container's status around
  /// the rename where it takes the replaced tree, the one rename (``Swap/perform(parentFD:temporary:)``),
  /// then ``complete(_:parentFD:)``, the readers let in again, and the package followed if another
  /// program moved it meanwhile (``followIfMoved(leaving:)``).
  /// - Parameter leaving: The new root of a whole save, held open (see ``followIfMoved(leaving:)``).
  /// - Returns: False when the file system refused the exchange (found out only when tried), having changed
  ///   nothing: this save and the next go by journal (``turnToJournal(_:)``).
  /// - Throws: ``PackageError`` naming the entry and the failed call, the package as it was; or what
  ///   ``complete(_:parentFD:)`` throws.
  private mutating func swapIn(
    _ swap: Swap, parentFD: CInt, readers: ReaderExclusion, leaving: HeldDirectory? = nil
  ) throws -> Bool {
    var swap = swap
    if !swap.isWholePackage, let versions, versions.takesReplacedTree,
      let before = try? Syscalls.status(of: swap.containerFD)
    {
      versions.willSwap(containerBefore: before)
      swap.containerTimed = true
    }
    do {
      try swap.perform(parentFD: parentFD, temporary: names.temporary)
    } catch  where swap.move == .exchanging && error.refusesExchange {
      readers.end()
      turnToJournal(parentFD)
      return false
    } catch {
      failBeforeSwap(parentFD)
      throw PackageError.io(error, swap.failure, path: swap.entryPath.string, context: "while saving")
    }
    if swap.move == .exchanging { OwnSaves.shared.wasReplaced(names.path(names.temporary), package: target) }
    try complete(swap, parentFD: parentFD)
    readers.end()
    if swap.move == .adding { discardTemporary(parentFD) }
    followIfMoved(leaving: leaving)
    return true
  }

  /// The exchange was refused, found out only when tried (a directory of an overlay's lower layer):
  /// this save and the next go by journal, which does without. The new state built for the exchange
  /// is removed, and a deferred keeping already begun is undone: the journal keeps the previous
  /// state itself, by copy (a previous state already copied stays kept).
  private mutating func turnToJournal(_ parentFD: CInt) {
    exchangeUnsupported = true
    discardTemporary(parentFD)
    guard let versions, versions.takesReplacedTree else { return }  // copied already: kept once is enough
    versions.abandon(undone: nil)
    previousStateKept = false
  }

  /// The swap failed, having changed nothing: the new state is removed and the keeper abandons what it began.
  private func failBeforeSwap(_ parentFD: CInt) {
    discardTemporary(parentFD)
    versions?.abandon(undone: nil)
  }

  /// Completes a swap (an exchange, or an entry renamed in or out): makes it durable, then hands
  /// what it replaced or removed to the keeper (or removes it). A swap that went into another
  /// directory than the package loaded (another took its place just before: ``LoadedRootHold``) is
  /// undone at once, before anything is made durable, swept or kept; so is any swap on a failure
  /// here: the one way back, ``rollBack(_:parentFD:swapTime:after:keepingBuilt:keptError:)``. A save never
  /// reports success for a state that may not survive or a version it promised and could not keep.
  /// - Throws: The failure (for a stranger's tree, that the package was replaced), the package then as it
  ///   was; or, if even the way back failed, an error naming where the previous state is left.
  private mutating func complete(_ swap: Swap, parentFD: CInt) throws {
    // The time the rename gave the folder it renamed in: what another program writes into the new state from now
    // on has later times (see `WrittenWhileInPlace`).
    let swapTime = (try? Syscalls.status(of: swap.containerFD))?.modificationTime
    if let heldRoot,
      !(swap.isWholePackage
        ? heldRoot.displacedIsLoaded(in: parentFD, names.temporary) : heldRoot.holdsThePackage())
    {
      // What the save built may be the one copy of what the model never read when the loaded package is gone
      // from disk; else it held nothing the moved package and the model do not (the document follows the
      // package and saves there, leaving nothing behind).
      throw rollBack(
        swap, parentFD: parentFD, swapTime: swapTime, after: LoadedRootHold.replaced(target),
        keepingBuilt: !heldRoot.isOnDisk
      ) { kept in LoadedRootHold.replaced(target, keptAt: kept) }
    }
    var sweep = ReplacedTreeSweep(
      package: target, replaced: names.path(names.temporary), changedPath: swap.changedPath)
    do {
      try flushDirectory(swap.containerFD, swap.containerPath)
      if !swap.isWholePackage { try flushDirectory(parentFD, names.parent) }
      if let versions, swap.containerTimed, let after = try? Syscalls.status(of: swap.containerFD) {
        versions.swapped(containerAfter: after)
      }
      if swap.move == .adding {
        // Nothing was replaced: the previous state had no entry at this path.
        try versions?.replacedNothing(at: swap.changedPath)
      } else {
        if sweepsReplaced && swap.move == .exchanging { sweep.run(listedDirectories, model: root) }
        try disposeOfReplaced(names.temporary, in: parentFD, changedPath: swap.changedPath)
      }
    } catch {
      sweep.undo()
      throw rollBack(swap, parentFD: parentFD, swapTime: swapTime, after: error, keepingBuilt: false) { kept in
        PackageError(
          .io, "\(error); and another program wrote into the new state while it was in place: it is kept at",
          path: kept.string, context: "(nothing removes it)")
      }
    }
    sweptPaths += sweep.sweptPaths
    sweptDirectories += sweep.gained
  }

  /// After a swap is durable: the replaced subtree (`name` in `parentFD`) goes to the keeper, or is removed.
  /// - Throws: ``PackageError`` if the keeper cannot take it; it is then still at `name`,
  ///   and the caller puts it back in place and fails the save.
  private func disposeOfReplaced(_ name: RawName, in parentFD: CInt, changedPath: String) throws {
    if let versions, try versions.takeReplaced(in: parentFD, name, changedPath: changedPath) { return }
    var relinked: [RelinkedFile] = []
    try? TreeRemoval.remove(name, in: parentFD, relinked: &relinked)
    versions?.relinked(relinked)
  }

  /// Removes the new state a failed save built (its unlinks of the package's files it linked noted
  /// for the pending versions, ``VersionKeeping/willDiscard(_:parentFD:)``).
  func discardTemporary(_ parentFD: CInt) {
    let noted = versions?.willDiscard(names.temporary, parentFD: parentFD)
    defer { noted?() }
    try? TreeRemoval.remove(names.temporary, in: parentFD)
  }

  func flushDirectory(_ fd: CInt, _ path: FilePath) throws {
    do { try Syscalls.synchronize(fd) } catch {
      // The folder flushed is often the package's parent: the line names the package too.
      let saving = path.starts(with: target) ? "while saving" : "while saving '\(target.string)'"
      throw PackageError.io(error, "cannot flush directory", path: path.string, context: saving)
    }
  }

  /// Re-bases the whole model on the saved package.
  private func rebaseRoot() {
    guard let location = root.origin?.location else { return }
    root.rebase(location: location, relativePath: FilePath(""))
    location.detachedNodes.removeAll()
  }

  /// After an in-place save's swap, before the model is pointed at what it saved: a package renamed or moved in
  /// between by another program (a file manager does that at any moment) is followed, through the root the save
  /// left, held open (`leaving`, the new root of a whole save; else the loaded root, ``LoadedRootHold``), as the
  /// monitor follows a moved package (``MovedPackage``). The model is then re-based at the new path, and
  /// ``movedTo`` says where; by its old path it found nothing, kept every edit, and its package looked deleted.
  private mutating func followIfMoved(leaving: HeldDirectory? = nil) {
    didSwapIn?()
    guard isInPlace else { return }
    leftRoot = leaving ?? heldRoot?.root
    let held =
      leaving.flatMap { left in RootIdentity.of(left.fd).map { (left.fd, $0) } }
      ?? heldRoot.map { ($0.root.fd, $0.identity) }
    guard let (fd, identity) = held, RootIdentity.at(target)?.isSame(as: identity) != true,
      let newPath = MovedPackage.newPath(rootDescriptor: fd, root: identity, from: target)
    else { return }
    movedTo = newPath
    root.origin?.location.root = newPath
  }

  /// Re-bases the saved subtree and re-reads the status of its directory, whose times the
  /// rename changed.
  private func finish(_ node: PackageNode) {
    guard let origin = node.origin, let parent = node.parent else { return }
    node.rebase(location: origin.location, relativePath: origin.relativePath)
    if let parentOrigin = parent.origin, let status = try? Syscalls.statusNoFollow(parentOrigin.absolutePath) {
      parent.origin?.status = status
    }
    origin.location.detachedNodes.removeAll()
  }
}
