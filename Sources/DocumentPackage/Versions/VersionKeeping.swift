import SystemPackage

/// Everything one in-place save does with the package's version store: the store's side of the
/// ``ReplacedStateKeeper`` interface, which the save calls in the order stated there and never
/// hears back from.
///
/// Before the swap (``willReplace(changing:adding:removing:root:)``): the app's ``PackageFile/willReplacePreviousState``
/// hook, then the previous state kept per the ``VersionPolicy`` — copied into the store now, or,
/// with ``deferred``, captured in O(changed) and copied when the pending version is settled
/// (``DeferredKeeping``) — and the new root recorded as the store's pending identity (so a kill
/// right after the swap still finds the store the package's). After the swap, the save hands
/// the replaced subtree to ``deferred``. After the save (``didSave()``, told by ``PackageFile``): the
/// store's identity is the new root, and a copied version's limit applied. The store is opened once, by
/// whichever of these needs it first.
///
/// A previous state copied before the swap is a version of the package as it still is until the save
/// commits: a save that fails before (``abandon(undone:)``) removes it again, and the oldest versions are
/// pruned only once the save is done (a failing save made a duplicate of the package and pruned a real
/// version for it).
///
/// A save that keeps no pending version of its own (versions off, or copied before the swap)
/// settles the pending ones first: it removes the subtree it replaces, which they may still read.
final class VersionKeeping: ReplacedStateKeeper {
  let packagePath: FilePath
  let policy: VersionPolicy
  /// The app's hook, called first (see ``PackageFile/willReplacePreviousState``).
  let appHook: ((FilePath) throws -> Void)?
  /// A remote holding some of the previous state's files: the version references them (then nothing is deferred).
  let holding: RemoteHolding?
  /// Keeps the previous state after the swap, copying it later; nil: copied before the swap.
  private(set) var deferred: DeferredKeeping?
  private var opened: Result<VersionStore, any Error>?
  /// The store was at its place when the build began (``willBuildNewState()``).
  private var storeWasInPlace = false
  /// The batch this save's build notes its links in, while pending versions wait (``LinkNote``).
  private var linkNote: LinkNote?
  /// The version this save copied of the previous state before its swap, until the save is done.
  private var copied: Int?
  /// Where that copy's id is written before it is recorded (``ReplacedStateKeeper/copyBeforeSwap(notingCopyAt:)``).
  private var copyMarker: FilePath?

  /// - Parameters:
  ///   - defersCopies: Keep the previous state pending (``PackageFile/defersVersionCopies``).
  ///   - holding: A remote holding some of the previous state's files (``PackageFile/save(options:previousStateHolding:)``).
  ///   - store: The store, if the caller opened it already for this save.
  init(
    packagePath: FilePath, policy: VersionPolicy, defersCopies: Bool, appHook: ((FilePath) throws -> Void)?,
    holding: RemoteHolding? = nil, store: VersionStore? = nil
  ) {
    self.packagePath = packagePath
    self.policy = policy
    self.appHook = appHook
    self.holding = holding
    // What a remote holds is not copied at all: a pending version would only put off copying the rest.
    deferred = defersCopies && policy != .none && holding == nil ? DeferredKeeping(policy: policy) : nil
    opened = store.map { .success($0) }
  }

  /// The package's version store, opened on first use (with its identity checked).
  func store() throws -> VersionStore {
    if let opened { return try opened.get() }
    let result = Result { try VersionStore(packagePath: packagePath, lockHeld: true) }
    opened = result
    return try result.get()
  }

  var hasStore: Bool { (try? store())?.exists == true }

  var takesReplacedTree: Bool { deferred != nil }

  /// The save copies the previous state before its swap after all (a save by journal replaces
  /// files one by one, leaving no subtree to move into the store; on a file system that copies
  /// files up, every file would look replaced). Drops a capture already begun.
  func copyBeforeSwap(notingCopyAt marker: FilePath?) {
    deferred?.abandon()
    deferred = nil
    copyMarker = marker
  }

  /// Before the new state is built, under the package lock: when pending versions wait to be
  /// settled, marks a save as under way (`pending/saving.start`), since building links the
  /// package's files and so moves their change times, which a settle walking meanwhile would take
  /// for writes (see ``SaveSequence``). The marker goes with the next ``DeferredKeeping/begin(in:changing:adding:newTree:)``
  /// (or, after a failure or a kill, the next save's), which holds the package lock too. Then opens
  /// the batch of `pending/linking` the build notes each link in before making it (``LinkNote``),
  /// so that a settle can tell the change times those links move from another program's changes,
  /// even after a kill. Best effort: a link not noted leaves its file named as not kept.
  ///
  /// The note is written through a descriptor, so it follows the store wherever it is moved after this. When no
  /// store is at its place and the package is gone from its own too, both were moved away (to another folder, as
  /// the README asks a user to move them): the store's pending versions may read the files the build would link,
  /// with nothing noted. The save then builds nothing and fails.
  /// - Throws: ``movedAway`` in that case.
  func willBuildNewState() throws {
    guard let store = try? store(), store.exists else {
      if (try? Syscalls.entryExists(packagePath)) == false { throw movedAway }
      return
    }
    storeWasInPlace = true
    guard store.hasPendingVersions else { return }
    let marker = store.pendingPath.appending(DeferredKeeping.savingMarker)
    if let fd = try? Syscalls.openFile(marker, [.writeOnly, .create, .truncate, .noFollow], mode: 0o644) {
      Syscalls.closeFile(fd)
    }
    linkNote = LinkNote(pendingPath: store.pendingPath)
  }

  func willLink(_ before: FileStatus) {
    linkNote?.announce(before)
  }

  func didBuildNewState() {
    linkNote?.close()
    linkNote = nil
  }

  /// Files whose change times the save's own links moved: the hash cache follows them (a store
  /// not made yet has no cache to tell), and a deferred capture records those whose change times
  /// were already after a pending version's capture (``DeferredKeeping/linked(_:)``).
  func relinked(_ files: [RelinkedFile]) {
    deferred?.linked(files)
    guard !files.isEmpty, let store = try? store(), store.exists else { return }
    HashCache.noteRelinked(files, at: store.hashesPath)
  }

  /// Before the swap, under the package lock, with the new state built at the temporary name
  /// beside the package (see the type's discussion).
  /// - Parameters:
  ///   - changedPath: The entry the save exchanges, adds or removes, relative to the package ("" for
  ///     the whole package).
  ///   - adding: Whether the save adds `changedPath` rather than exchanging it.
  ///   - removing: Whether the save renames `changedPath` out to the temporary name (it built nothing).
  /// - Throws: What the app's hook throws, `CancellationError` if the save's task was cancelled
  ///   (the last point where it is honoured, before the store is touched: see `Saver`), or
  ///   ``PackageError`` if the store cannot keep the previous state; the save then fails and the
  ///   package stays as it was.
  func willReplace(changing changedPath: String, adding: Bool, removing: Bool, root: RootIdentity? = nil) throws {
    try appHook?(packagePath)
    try Task.checkCancellation()
    // Another directory put at the package's path (even by the hook): neither its state is kept nor
    // its root recorded as this package's (the store records `root`, not what is at the path).
    if let root, RootIdentity.at(packagePath).map({ !$0.isSame(as: root) }) ?? true {
      throw LoadedRootHold.replaced(packagePath)
    }
    // The store moved away since the build began (with the package, to another folder: a save into folders it
    // holds open follows the package there): kept by its path, the previous state would go to a new store made
    // here, and the moved store's pending versions would find the swap unexplained. Nothing is swapped.
    if storeWasInPlace, (try? store())?.exists != true { throw movedAway }
    let names = try SiblingNames(of: packagePath)
    let newTree = removing ? nil : try? Syscalls.statusNoFollow(names.path(names.temporary))
    let newRoot = newTree?.kind == .directory ? RootIdentity.at(names.path(names.temporary)) : nil
    if policy == .none {
      // Keep nothing, but keep an existing store the package's across a root replacement, and
      // its pending versions whole: this save removes the subtree it replaces, which they may read.
      if let store = try? store(), store.exists {
        try store.settlePendingVersions()
        try store.recordPendingIdentity(newRoot, root: root)
      }
      return
    }
    let store = try store()
    if let deferred {
      // O(changed): the copies are made when the pending version is settled, which also prunes.
      try deferred.begin(in: store, changing: changedPath, adding: adding, newTree: newTree, removing: removing)
      try store.recordPendingIdentity(newRoot, root: root)
      return
    }
    // Copied now, the replaced subtree is removed after the swap: the pending versions, which may
    // read it, are settled first (see ``SaveSequence``).
    try store.settlePendingVersions()
    copied = try store.keepPackageState(holding: holding, notingIDAt: copyMarker).id
    try store.recordPendingIdentity(newRoot, root: root)
  }

  /// The package and its store were moved away from their places while the package was saved.
  private var movedAway: PackageError {
    PackageError(
      .noSuchEntry, "cannot save: the package was moved away (with its versions) while it was saved:",
      path: packagePath.string, context: "(nothing was changed: save it where it is now)")
  }

  func willSwap(containerBefore: FileStatus) {
    deferred?.willSwap(containerBefore: containerBefore)
  }

  func swapped(containerAfter: FileStatus) {
    deferred?.swapped(containerAfter: containerAfter)
  }

  func replacedNothing(at changedPath: String) throws {
    try deferred?.recordAbsent(changedPath: changedPath)
  }

  func takeReplaced(in parentFD: CInt, _ name: RawName, changedPath: String) throws -> Bool {
    try deferred?.keep(replacedIn: parentFD, name, changedPath: changedPath) ?? false
  }

  /// The save failed once the capture was begun; `undone`: the status, once its rename was undone, of
  /// the directory it renamed its entry in and of the entry (see ``DeferredKeeping/abandon(undone:)``).
  func abandon(undone: (container: FileStatus, entry: FileStatus?)?) {
    deferred?.abandon(undone: undone)
    // The package is the state copied: the copy would be a second version of it.
    if let copied, let store = try? store() { try? store.removeLocked([copied]) }
    copied = nil
  }

  /// Before a failed save removes the new state it built (`name` in `parentFD`), whose files it linked
  /// from the package: the unlinks are noted as recovery's are (``LinkNote/noteRemoval(of:_:parentFD:)``).
  /// - Returns: What ends the note's batch once the tree is removed.
  func willDiscard(_ name: RawName, parentFD: CInt) -> (() -> Void)? {
    guard let names = try? SiblingNames(of: packagePath) else { return nil }
    return LinkNote.noteRemoval(of: [name], names, parentFD: parentFD)
  }

  /// The pending records of deferred saves killed after their swap (``DeferredKeeping/completeInterruptedSaves(_:parentFD:)``).
  static func completeInterruptedSaves(_ names: SiblingNames, parentFD: CInt) -> [RecoveryAction] {
    // A package renamed since the save was killed: its store, still under the old name, holds the marker of
    // the save whose replaced tree recovery just took from there (`MovedLeftovers`); found as opening it would.
    if (try? Syscalls.exists(in: parentFD, names.versions)) == false {
      try? VersionStore.findMovedStore(for: names.path(names.package), names: names, lockHeld: true)
    }
    let (recorded, damaged) = DeferredKeeping.completeInterruptedSaves(names, parentFD: parentFD)
    let store = names.path(names.versions).string
    return recorded.map { id in
      RecoveryAction(description: "completed an interrupted save: recorded pending version \(id) in", path: store)
    }
      + damaged.map { id in
        RecoveryAction(
          description: "an interrupted save's capture marker is damaged: kept as damaged pending version \(id) in",
          path: store)
      }
  }

  static func takeBackCopy(notedAt marker: FilePath, _ names: SiblingNames) -> [RecoveryAction] {
    // Its one line checked: a damaged note takes nothing back (the version stays, one too many).
    guard let text = try? LocalFiles.read(marker, limit: 256), text.last == 10,
      let line = HashCache.verified(String(decoding: text.dropLast(), as: UTF8.self)[...]), let id = Int(line),
      let store = try? VersionStore(packagePath: names.path(names.package), lockHeld: true, checkingIdentity: false),
      store.exists, (try? store.records().contains { $0.version.id == id }) == true,
      (try? store.removeLocked([id])) != nil
    else { return [] }
    return [
      RecoveryAction(
        description: "took back version \(id), which an interrupted save copied before it changed anything, from",
        path: store.path.string)
    ]
  }

  /// Recovery's removal of what killed saves left is noted as a build's links are (``LinkNote/noteRemoval(of:_:parentFD:)``).
  static func willRemoveLeftovers(_ leftovers: [RawName], _ names: SiblingNames, parentFD: CInt) -> (() -> Void)? {
    LinkNote.noteRemoval(of: leftovers, names, parentFD: parentFD)
  }

  /// After a save: the store's identity is the package's root now (best effort: the pending
  /// identity recorded before the swap already matches). Only a store that was this package's
  /// (its pending root included) is touched.
  func didSave() {
    // The limit, once the copied version is one of a state the package left (best effort: the save is done).
    if copied != nil, case .keepLast(let count) = policy, let store = try? store() {
      _ = try? store.pruneLocked(keepingLast: count)
    }
    copied = nil
    if opened == nil {
      opened = Result { try VersionStore(packagePath: packagePath, lockHeld: true, checkingIdentity: false) }
    }
    guard let store = try? opened?.get(), store.exists, let identity = StoreIdentity.read(from: store.path),
      let root = RootIdentity.at(packagePath), identity.matches(root)
    else { return }
    try? store.recordIdentity()
  }
}
