import SystemPackage

/// What an in-place save tells whoever keeps the states it replaces, and when: the one interface
/// between saving and the version store. The save knows only this protocol; the version store's
/// ``VersionKeeping`` implements it, and ``PackageFile`` hands one to the save. Nothing here calls
/// the save back.
///
/// For one save, under the package lock, in this order:
/// 1. ``willBuildNewState()``, before the new state is built beside the package; then, while it
///    is built, ``willLink(_:)`` just before each hard link of a package entry into it, and
///    ``didBuildNewState()`` once it is built (or removed again after a failure).
/// 2. ``copyBeforeSwap(notingCopyAt:)``, only when the save changes the package file by file (by journal) or its
///    file system copies files up: the keeper must then copy the previous state in step 3, and
///    takes nothing after the swap. A save by journal names a file in its journal where the keeper writes
///    the copy's id before recording it: a save killed before its plan is committed changed nothing, and
///    recovery has the keeper take that copy back (``takeBackCopy(notedAt:_:)``).
/// 3. ``willReplace(changing:adding:removing:root:)``, once, just before the swap: the commit point. It may
///    throw (the app's hook, cancellation, a store that cannot keep the state); the save then
///    fails and the package is as it was.
/// 4. When the save renames an entry into a directory of the package (not for a whole package):
///    ``willSwap(containerBefore:)`` just before the rename, which the save does next.
/// 5. After the swap is durable: ``swapped(containerAfter:)`` (after step 4), then
///    ``replacedNothing(at:)`` for an entry added, or ``takeReplaced(in:_:changedPath:)`` for the
///    subtree swapped out (taken, or left for the save to remove). Either may throw: the save
///    then swaps the previous state back and fails.
/// 6. ``abandon(undone:)`` whenever the save gives up after step 3 (it swapped back, failed before its
///    journal's plan was committed, or turned to the journal after an exchange was refused: it then
///    starts again at step 2; a state copied in step 3 is then no version of its own), with the status of the
///    directory and of the entry once the rename of step 4 was undone; then ``willDiscard(_:parentFD:)`` before it removes
///    the new state it built (as before the removal of a build that failed before step 3).
///
/// A save killed between steps 3 and 5 leaves what ``completeInterruptedSaves(_:parentFD:)``
/// finishes when ``Recovery`` runs, before it removes the trees a save left beside the package.
protocol ReplacedStateKeeper: AnyObject {
  /// Whether the package had a version store before this save (a save by journal that would make
  /// the package anew then knows it was moved or deleted meanwhile).
  var hasStore: Bool { get }
  /// Whether the keeper takes the replaced subtree after the swap (it defers its copies).
  var takesReplacedTree: Bool { get }
  /// Before the build: may throw when the build must not link the package's files (see ``VersionKeeping``);
  /// nothing was built then, and the save fails with the package as it was.
  func willBuildNewState() throws
  /// Just before the build hard-links the package entry whose status is `before` into the new state:
  /// the link moves the entry's change time, and a kill right after it would leave no other trace
  /// of what the entry was before it.
  func willLink(_ before: FileStatus)
  /// After the build's last link (or after the removal of a build that failed).
  func didBuildNewState()
  /// The files the save linked into its new state, or whose old names it removed: their change
  /// times moved by the save's own hand (see ``RelinkedFile``). Told after the build (before
  /// ``willReplace(changing:adding:)``) and after the replaced subtree is removed.
  func relinked(_ files: [RelinkedFile])
  /// - Parameter marker: Where to write the id of the version copied, durably, before it is recorded (nil: nowhere).
  func copyBeforeSwap(notingCopyAt marker: FilePath?)
  /// - Parameters:
  ///   - changedPath: The entry the save exchanges, adds or removes, relative to the package ("" for
  ///     the whole package, and for a journaled save, which changes the package in place).
  ///   - adding: Whether the save adds `changedPath` rather than exchanging it.
  ///   - removing: Whether the save removes `changedPath` by renaming it out to the temporary name
  ///     (``EntryRemoval``): it built no new state, and what is at the temporary name after the
  ///     rename is the replaced entry.
  ///   - root: The package root an in-place save loaded and holds (``LoadedRootHold``): the root
  ///     this package's is, whatever another program put at its path meanwhile; nil when not known.
  func willReplace(changing changedPath: String, adding: Bool, removing: Bool, root: RootIdentity?) throws
  /// The status of the directory the save renames its entry in, just before the rename.
  func willSwap(containerBefore: FileStatus)
  /// The status of that directory after the rename (and its fsync).
  func swapped(containerAfter: FileStatus)
  func replacedNothing(at changedPath: String) throws
  /// - Returns: Whether the keeper took the subtree at `name` in `parentFD` (moved it away); if
  ///   not, the save removes it.
  func takeReplaced(in parentFD: CInt, _ name: RawName, changedPath: String) throws -> Bool
  /// - Parameter undone: The status of the directory of step 4 once the save renamed its entry back,
  ///   and of that entry (nil: an added entry renamed out again); nil when it did not rename one in.
  func abandon(undone: (container: FileStatus, entry: FileStatus?)?)
  /// Just before a failed save removes the new state it built (`name` in `parentFD`): the removal
  /// unlinks the other names of package files the build linked, moving their change times.
  /// - Returns: What to call once it is removed (nil: nothing).
  func willDiscard(_ name: RawName, parentFD: CInt) -> (() -> Void)?
  /// Under the package lock, during recovery: finishes what saves killed between steps 3 and 4
  /// left beside the package (`names`) for the keeper.
  /// - Returns: One line for each thing finished, naming it.
  static func completeInterruptedSaves(_ names: SiblingNames, parentFD: CInt) -> [RecoveryAction]
  /// Under the package lock, during recovery, before it removes the journal of a save killed before its plan was
  /// committed (the package as it was): removes the version that save copied of the package, whose id it wrote at
  /// `marker` (``copyBeforeSwap(notingCopyAt:)``), if it was recorded: a second version of the state the package has.
  /// - Returns: One line when it removed one, naming it.
  static func takeBackCopy(notedAt marker: FilePath, _ names: SiblingNames) -> [RecoveryAction]
  /// Under the package lock, during recovery, just before it removes the trees killed saves left
  /// beside the package (`leftovers`, those of them present): the removal unlinks the other names of
  /// package files a build linked there, moving their change times.
  /// - Returns: What to call once they are removed (nil: nothing).
  static func willRemoveLeftovers(_ leftovers: [RawName], _ names: SiblingNames, parentFD: CInt) -> (() -> Void)?
}
