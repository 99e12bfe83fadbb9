import SystemPackage

/// What tells a settle that no save changed the package while it walked it: the store's
/// `last-id` and the names in `pending/`, read together. Read first, the walk is valid when
/// nothing was in flight then and both are the same after it.
///
/// **The protocol between a deferred save and a settle** (``DeferredKeeping``, ``PendingStateWalk``).
/// The settle holds the store's lock, never the package's, so saves go on while it walks the
/// package. What makes its walk a snapshot anyway are these invariants:
/// 1. Every save that changes the package holds the package lock. One that keeps no pending
///    version (versions off, or copied at the save) settles the pending versions first, under that
///    lock (``VersionKeeping``): it never removes a subtree a pending version still reads.
/// 2. A save that builds its new state while pending versions wait first creates `pending/saving.start`
///    (building links the package's files, which moves their change times); step (b) below
///    removes it once `ID.start` is made, so that one of the two marks the build until the save
///    ends (a leftover of either is removed by the next save's step (b), under the package lock).
///    A deferred save changes the package only between two steps it takes in this order:
///    (a) it gives itself an id, writing `last-id`; (b) it creates `pending/ID.start`; (c) it
///    swaps; (d) it moves the replaced subtree to `pending/ID.old` and writes `pending/ID`;
///    (e) it removes `ID.start`. A save that fails after (b) renames `ID.start` to
///    `ID.abandoned` instead of removing it (the next save's clean-up removes it, but not while a
///    pending version before it waits if it swapped back: ``UndoneSwap``). A save killed
///    after (c) has (d) and (e) done for it by recovery, under the package lock, from what its
///    `ID.start` says (``SaveIntent``); one killed before (c) has its marker renamed `ID.abandoned`.
/// 3. The settle reads `last-id`, then lists `pending/` (``read(in:)``); it walks only if no
///    `ID.start` is listed; after the walk it reads both again.
///
/// If a save's swap (c) fell inside the walk, one of the two differs: had the save taken its id
/// (a) after the first read, `last-id` differs; had it taken it before, its `ID.start` (b) was
///  either listed before the walk (the walk is not even tried) or made after that listing, and
/// then, after the walk, `ID.start`, `ID` or `ID.abandoned` is a name that was not there before.
/// So a walk whose two reads agree saw no save's swap: every path it read from the package was
/// as the last pending record says, and what differs from the capture was changed by another
/// program (judged by the files' times, see ``PendingStateWalk``).
///
/// A walk the reads reject is done again; after a few tries (saves keep coming, or a killed save
/// left its `ID.start`), the settle takes the package lock and walks with no save possible. The
/// reads also compare what the package's path names: a package moved (or replaced) during the walk
/// was not walked whole, and the settle fails rather than name what it missed as not kept; the
/// pending version waits for the next settle, at the package's new name.
struct SaveSequence {
  /// The highest id given (`last-id`, or the records present).
  let lastID: Int
  /// The names in `pending/` (nil: it could not be listed, which vouches for nothing).
  let listed: Set<String>?
  /// The device and inode of the package's root at its path (nil: nothing there). A package moved
  /// or replaced while it was walked was not walked whole either.
  let root: [UInt64]?

  /// Reads `store`'s sequence: `last-id` first, then `pending/` (see the type's discussion), then
  /// what the package's path names.
  static func read(in store: VersionStore) -> SaveSequence {
    let lastID = (try? store.lastGivenID()) ?? -1
    let names = (try? StoreFiles.names(in: store.pendingPath)).map(Set.init)
    let root = (try? Syscalls.statusNoFollow(store.packagePath)).map { [$0.device, $0.inode] }
    return SaveSequence(lastID: lastID, listed: names, root: root)
  }

  /// Whether no save took an id, recorded or failed between `other`'s read and this one (the
  /// package's root may still differ: a save of the whole package replaces it, another program may
  /// move it).
  func hasSameSaves(as other: SaveSequence) -> Bool {
    lastID == other.lastID && listed != nil && listed == other.listed
  }

  /// Whether a save is between its id and its record: its swap may happen at any moment (or `pending/` could
  /// not be listed, which cannot tell).
  var hasSaveInFlight: Bool { listed?.contains { $0.hasSuffix(".start") } ?? true }

  /// Whether the pending record `id` is listed.
  func lists(_ id: Int) -> Bool { listed?.contains(String(id)) ?? false }

  /// The ids of the pending records listed, oldest first.
  var pendingIDs: [Int] { (listed ?? []).compactMap { Int($0) }.sorted() }
}
