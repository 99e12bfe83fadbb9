/// A deferred save that renamed its entry into a directory of the package and renamed it back (it
/// failed after its swap: a flush, the move of the replaced entry into the store, or its record):
/// the package's entries are as they were, but the two renames moved the times of that directory,
/// and the change time of the entry they moved, after the capture of every pending version before it.
///
/// Its capture marker stays as `pending/ID.abandoned` while such a version waits, holding the
/// directory's times just before the swap and just after it was undone (``SaveIntent/Undone``), and
/// what the save saw of the entry before its rename (``PendingVersion/Seen``). ``PendingStateWalk``
/// takes it as a link in the chain of our renames in that directory (the times before are the
/// previous link's times after), and bounds the entry's change time by the directory's change time
/// after the undo, which the same rename set. Without it, a full disk at the wrong moment would leave
/// every earlier pending version naming that directory as not kept.
struct UndoneSwap {
  let id: Int
  /// The entry the save swapped and swapped back, relative to the package (never the whole package:
  /// its swap renames nothing inside the package).
  let changed: String
  /// The directory's times before the swap, and (as `after`) once the swap was undone.
  let containerTimes: PendingVersion.ContainerTimes
  /// The status of the entry at ``changed`` once the swap was undone (nil: an added entry, renamed out
  /// again).
  let entryAfter: PendingVersion.Seen?
  /// What the save saw of the entries it linked or renamed, as a pending record's.
  let seen: [PendingVersion.Seen]

  /// The directory the save renamed its entry in, relative to the package.
  var container: String { PendingVersion.container(of: changed) ?? "" }

  /// The latest change time the two renames can have given the entry at ``changed``: its change time
  /// once back.
  var end: FileTime { entryAfter?.change ?? containerTimes.before.change }

  /// The times of the entry at ``changed`` (a directory our renames changed) just before the swap and
  /// once back, as a link in the chain of our renames in it: the swap moved its change time only. Nil
  /// when the save did not see it before (its change time was not after the oldest pending capture:
  /// its modification time then stands for both, which the chain's first link must find not after *T*).
  var ownTimes: PendingVersion.ContainerTimes? {
    guard let entryAfter else { return nil }
    let before = seen.first { $0.device == entryAfter.device && $0.inode == entryAfter.inode }
    return PendingVersion.ContainerTimes(
      before: before.map { ($0.modification, $0.change) } ?? (entryAfter.modification, entryAfter.modification),
      after: (entryAfter.modification, entryAfter.change))
  }
}
