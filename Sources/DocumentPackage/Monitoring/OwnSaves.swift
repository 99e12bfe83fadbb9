import SystemPackage

/// The files and directories that saves by ``PackageFile``s in this process put in place lately,
/// so that a ``PackageMonitor`` can tell its own process's saves from other programs' changes.
///
/// A save builds its new state (a subtree, or the whole package) under a temporary name and
/// tells its inode here *before* swapping it in (``willPlace(_:)``); a monitor that sees an entry
/// or the package take a new inode asks whether that inode is one of them (``placement(device:inode:folder:package:owner:at:)``).
/// Unlike a time window, this is exact: another program's change made during our save is not
/// taken for ours. The last 256 inodes are kept, each with the package's name and the inode of
/// the folder it is in: an inode number freed and given to another file (say of another package
/// in that folder, a save-as's source, or a test's temporary folder removed) is not taken for a
/// save. In its own package, a number given again to another entry is told apart by the monitor:
/// each placement has a serial number, and a monitor takes each placement for a save once, and
/// none made before it started (a save-as's, placed before the document watched its new path). So
/// a later save given the same inode number again is a new placement, taken for a save, and
/// another program's entry given a number that a claimed or older placement had is not.
/// Each is recorded with the saver that placed it, when
/// one says who it is (a ``Document``'s package file): the document's monitor takes only its own
/// saves for its own, and a pull or a save by other code in the same process is news to it.
/// And each with the entry's birth time where the file system keeps one (``Syscalls/birthTime(_:)``):
/// a save's entry that another program replaced before the monitor looked is never claimed, and
/// once its number is freed and given to another program's new entry (ext4 gives freed numbers
/// again), that entry, born later, is not taken for the save's.
/// And each with what the save carried from disk into directories its model never listed
/// (``CarriedEntries``), so that another program's entry put there after the swap, before the
/// monitor looked, is not taken for the save's (at most ``carriedLimit`` entries in all, the
/// newest placements' kept).
package final class OwnSaves: @unchecked Sendable {
  package static let shared = OwnSaves()

  private struct Placed: Hashable {
    var device: UInt64
    var inode: UInt64
    /// The folder the temporary entry was made in: the one holding the package.
    var folder: UInt64
    /// The package's name in that folder.
    var package: String
  }
  /// A placement: who made it (nil: a saver that did not say), its serial number, and what the
  /// save carried from disk into directories its model never listed (nil: not kept).
  package struct Placement: Sendable {
    var owner: ObjectIdentifier?
    package var serial: UInt64
    package var carried: CarriedEntries?
    /// When the placed entry was made (nil: the file system does not say).
    var birth: FileTime?
  }
  private let lock = SystemLock()
  private var placed: [Placed] = []
  private var lookup: [Placed: Placement] = [:]
  private var nextSerial: UInt64 = 0
  /// How many carried entries the placements keep, and the most they keep: beyond it, the oldest
  /// placements' are dropped (the newest is always kept). A placement without them is judged as
  /// before they were kept: whatever is in what it put in place is taken for the save's.
  private var carriedCount = 0
  static let carriedLimit = 100_000

  /// The serial number the next placement gets: a monitor starting now takes only placements from
  /// this one on.
  package var nextPlacementSerial: UInt64 { lock.withLock { nextSerial } }

  /// Records the inode of the entry at `path` (the new state, still under its temporary name),
  /// which a save is about to swap in. Does nothing if it cannot be read.
  /// - Parameters:
  ///   - package: The package it goes into.
  ///   - owner: Who saves (``PackageFile/saveOwner``), if it says.
  ///   - carried: What the save carried from disk into directories its model never listed.
  package func willPlace(
    _ path: FilePath, package: FilePath, owner: ObjectIdentifier? = nil, carried: CarriedEntries? = nil
  ) {
    guard let status = try? Syscalls.statusNoFollow(path), let folder = Self.folderInode(of: package) else {
      return
    }
    record(
      device: status.device, inode: status.inode, birth: Syscalls.birthTime(path), folder: folder,
      package: package.lastComponent?.string ?? "", owner: owner, carried: carried)
  }

  /// Records a placement: the entry with this inode, made at `birth`, in the package named
  /// `package` in the folder whose inode is `folder` (``willPlace(_:package:owner:carried:)``
  /// reads them from the entry; a test gives them to stand for an entry gone since).
  func record(
    device: UInt64, inode: UInt64, birth: FileTime?, folder: UInt64, package: String, owner: ObjectIdentifier?,
    carried: CarriedEntries?
  ) {
    let entry = Placed(device: device, inode: inode, folder: folder, package: package)
    lock.withLock {
      let placement = Placement(owner: owner, serial: nextSerial, carried: carried, birth: birth)
      nextSerial += 1
      if forget(entry) { placed.removeAll { $0 == entry } }  // the same number placed again: newest last
      lookup[entry] = placement
      carriedCount += carried?.count ?? 0
      placed.append(entry)
      if placed.count > 256 { _ = forget(placed.removeFirst()) }
      // Oldest first, the carried entries beyond the limit are dropped (never the newest's).
      for older in placed.dropLast() where carriedCount > Self.carriedLimit {
        guard let count = lookup[older]?.carried?.count else { continue }
        lookup[older]?.carried = nil
        carriedCount -= count
      }
    }
  }

  /// Removes the placement `entry`, if there is one (the lock held); `placed` is the caller's.
  /// - Returns: Whether there was one.
  private func forget(_ entry: Placed) -> Bool {
    guard let removed = lookup.removeValue(forKey: entry) else { return false }
    carriedCount -= removed.carried?.count ?? 0
    return true
  }

  /// Forgets the placement of the entry at `path`, if it was one: a save has just exchanged it
  /// out of the package `package` (it is the replaced state now, to be kept as a version or
  /// removed), so that its inode number, once freed and given to another entry, is not taken for a
  /// save — also when no monitor took it for one (two saves of one entry in one burst).
  package func wasReplaced(_ path: FilePath, package: FilePath) {
    guard let status = try? Syscalls.statusNoFollow(path), let folder = Self.folderInode(of: package) else {
      return
    }
    let entry = Placed(
      device: status.device, inode: status.inode, folder: folder, package: package.lastComponent?.string ?? "")
    lock.withLock {
      if forget(entry) { placed.removeAll { $0 == entry } }
    }
  }

  /// The inode of the folder that holds the entry at `path` (the current directory for a bare name).
  package static func folderInode(of path: FilePath) -> UInt64? {
    let folder = path.removingLastComponent()
    return try? Syscalls.statusFollowing(folder.isEmpty ? "." : folder).inode
  }

  /// The latest placement by a save in this process of the entry with this inode, now at `path`,
  /// in the package named `package` in the folder whose inode is `folder` (with `owner`, by that
  /// owner); nil if none, or if the entry at `path` was made after the placed one (another entry
  /// given its number: see the comment above). `path` is made only for an inode a save placed: the
  /// monitor asks for every new entry of a burst, and a path thousands of bytes long is not free.
  package func placement(
    device: UInt64, inode: UInt64, folder: UInt64, package: String, owner: ObjectIdentifier? = nil,
    at path: @autoclosure () -> FilePath
  ) -> Placement? {
    let found = lock.withLock {
      lookup[Placed(device: device, inode: inode, folder: folder, package: package)]
    }
    guard let found, owner == nil || found.owner == owner else { return nil }
    if let placed = found.birth, let born = Syscalls.birthTime(path()), born != placed { return nil }
    return found
  }
}
