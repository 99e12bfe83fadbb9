import SystemPackage

/// The files and directories that saves by ``PackageFile``s in this process put in place lately,
/// so that a ``PackageMonitor`` can tell its own process's saves from other programs' changes.
///
/// A save builds its new state (a subtree, or the whole package) under a temporary name and
/// tells its inode here *before* swapping it in (``willPlace(_:)``); a monitor that sees an entry
/// or the package take a new inode asks whether that inode is one of them (``isOwn(device:inode:)``).
/// Unlike a time window, this is exact: another program's change made during our save is not
/// taken for ours. The last 256 inodes are kept, each with the package's name and the inode of
/// the folder it is in: an inode number freed and given to another file (say of another package
/// in that folder, a save-as's source, or a test's temporary folder removed) is not taken for a
/// save. (In its own package, a number given again to another entry is told apart by the monitor:
/// it takes each inode for a save once.) Each is recorded with the saver that placed it, when
/// one says who it is (a ``Document``'s package file): the document's monitor takes only its own
/// saves for its own, and a pull or a save by other code in the same process is news to it.
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
  private let lock = SystemLock()
  private var placed: [Placed] = []
  /// Who placed each (nil: a saver that did not say).
  private var lookup: [Placed: ObjectIdentifier?] = [:]

  /// Records the inode of the entry at `path` (the new state, still under its temporary name),
  /// which a save is about to swap in. Does nothing if it cannot be read.
  /// - Parameters:
  ///   - package: The package it goes into.
  ///   - owner: Who saves (``PackageFile/saveOwner``), if it says.
  package func willPlace(_ path: FilePath, package: FilePath, owner: ObjectIdentifier? = nil) {
    guard let status = try? Syscalls.statusNoFollow(path), let folder = Self.folderInode(of: package) else {
      return
    }
    let entry = Placed(
      device: status.device, inode: status.inode, folder: folder, package: package.lastComponent?.string ?? "")
    lock.withLock {
      guard lookup.updateValue(owner, forKey: entry) == nil else { return }
      placed.append(entry)
      if placed.count > 256 { lookup[placed.removeFirst()] = nil }
    }
  }

  /// The inode of the folder that holds the entry at `path` (the current directory for a bare name).
  package static func folderInode(of path: FilePath) -> UInt64? {
    let folder = path.removingLastComponent()
    return try? Syscalls.statusFollowing(folder.isEmpty ? "." : folder).inode
  }

  /// Whether a save in this process put the entry with this inode in place, in the package named
  /// `package` in the folder whose inode is `folder`; with `owner`, a save by that owner.
  package func isOwn(device: UInt64, inode: UInt64, folder: UInt64, package: String, owner: ObjectIdentifier? = nil)
    -> Bool
  {
    lock.withLock {
      guard let placer = lookup[Placed(device: device, inode: inode, folder: folder, package: package)] else {
        return false
      }
      return owner == nil || placer == owner
    }
  }
}
