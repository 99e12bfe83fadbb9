import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A reference to a package on disk that an app stores ("the last opened document") and resolves
/// later, finding the package after it was renamed, moved within its file system, or saved any
/// number of times — the role of a URL bookmark on Apple platforms.
///
/// ```swift
/// let reference = try PackageReference(package: "/home/ann/Trip.mydoc")
/// let stored = reference.text                       // one line: "docpkg-ref1:eyJk…" (or Codable)
/// // … the user renames Trip.mydoc to Voyage.mydoc, moves it, saves it …
/// let found = try PackageReference(text: stored).resolve()
/// if found.isStale { store(found.reference.text) }  // it moved: keep the fresh reference
/// let document = try await Document(contentsOf: found.path)
/// ```
///
/// ## What identifies a package, and why
///
/// - **Not the root's device and inode alone.** A save replaces the root directory with a new
///   inode whenever it exchanges the whole tree (`renameat2(RENAME_EXCHANGE)`; see `Saver`).
/// - **Not the version store's identity.** `.NAME.docpkg-versions` records the root's inode beside
///   the package, but stays behind when the package moves to another folder.
/// - **Not the inodes of unchanged files** (hard-linked across saves): a package whose files are
///   all rewritten by a save loses them, and a hard-linked copy (`cp -al`) shares them.
/// - **An identity on the root directory itself**: a random identifier in the extended attribute
///   `user.docpkg.identity` (`PackageIdentity`), together with the device and inode of the
///   directory it was written on. Making a reference writes it once (nothing is added *inside*
///   the package, no privilege is needed: `user.*` attributes belong to the file's owner). Saves
///   that replace the root write it on the new root with the new inode, so it survives saves; a
///   rename or a move within the file system keeps the directory and so the attribute.
///
/// **A copy is not the original.** `cp -r`, `rsync -a` and archives drop the attribute: the copy
/// has no identity. `cp -a` (and `rsync -X`, `tar --xattrs`) keep it, but the copy lives in another
/// inode, so its attribute is *unbound* (its inode is not the one recorded) and resolution never
/// takes it for the original while searching. Making a reference to such a copy gives the copy a
/// new identity of its own, unless it is asked to adopt the one it carries
/// (``init(package:adoptingIdentity:)`` with `adoptingIdentity: true`, `docpkg bookmark --adopt`):
/// the way to say "this copy *is* the document now", after a move to another file system (which
/// is a copy) or a restore from a backup. One case cannot be told apart: a copy put at the
/// original's path after the original was moved or removed; it is accepted there (as Apple's
/// bookmarks accept whatever is at the path), reported stale, and only after a search found no
/// bound original.
///
/// ## How resolution looks for the package
///
/// Linux has no unprivileged "open by file id" (`open_by_handle_at` needs `CAP_DAC_READ_SEARCH`),
/// so after a move resolution searches, bounded (``ResolutionOptions``):
/// 1. the recorded path: the package is there when it holds the bound identity — not stale;
/// 2. a breadth-first search on the recorded device only: the old parent folder (or, if it is
///    gone, its nearest existing ancestor) and its subtree, then each ancestor in turn and its
///    subtree, up to the file system's root (mount points are not crossed, symbolic links not
///    followed, version stores and other `.NAME.docpkg-*` names and other packages not entered),
///    listing at most ``ResolutionOptions/maximumFolders`` folders — found: stale;
/// 3. an unbound identity at the recorded path (see above) — stale.
///
/// Nothing found: ``PackageError`` `noSuchEntry`, saying whether every folder on the way to the
/// root was searched or the budget ran out first (the package may then lie further away).
///
/// **Where no attribute can be kept** (a file system without `user.*` attributes, a read-only
/// package, a package of another owner), the reference keeps the root's device and inode only:
/// it follows renames and moves (same search), but not a save that replaces the root.
///
/// **macOS** (designed, not built here): the same attribute works (any name is allowed there),
/// and resolution would first try the volume's file ID (`ATTR_CMN_FILEID` / `fsgetpath`), which
/// needs no privilege on APFS and HFS+, before searching; Foundation's `URL.bookmarkData` covers
/// renames and moves but, like the root inode, loses the package when a save exchanges its root.
///
/// Resolving and making a reference do blocking file I/O: call them off the cooperative pool
/// (from a ``Document``'s executor, a thread of your own, or `Task.detached` if you must).
public struct PackageReference: Sendable, Hashable {
  /// The version of the format (``text`` and the `Codable` form) this library writes.
  public static let formatVersion = 1

  /// The package's absolute path when the reference was made (or last refreshed).
  public private(set) var path: FilePath
  /// The device of the package's file system.
  public private(set) var device: UInt64
  /// The root directory's inode when the reference was made (a save may change it).
  public private(set) var inode: UInt64
  /// The identity kept on the package's root (`PackageIdentity`), or nil where the file system
  /// keeps no extended attributes (the reference then follows the root's inode only).
  public private(set) var identifier: UUID?

  init(path: FilePath, device: UInt64, inode: UInt64, identifier: UUID?) {
    self.path = path
    self.device = device
    self.inode = inode
    self.identifier = identifier
  }

  /// Makes a reference to the package at `package`, giving the package an identity first if it
  /// has none (an extended attribute on its root directory, written under the package's lock).
  ///
  /// - Parameters:
  ///   - package: The package's directory (relative paths and symbolic links are resolved).
  ///   - adoptingIdentity: If the package carries an identity that is not its own (it is a copy
  ///     made with `cp -a`), take that identity over, so that references to the original find
  ///     this copy (and no longer the original). By default such a copy gets a new identity.
  /// - Throws: ``PackageError`` `noSuchEntry` if nothing is at `package`, `notADirectory` if it is
  ///   not a directory, `io` if it cannot be read or its identity cannot be written for another
  ///   reason than the file system or the permissions refusing attributes.
  public init(package: FilePath, adoptingIdentity: Bool = false) throws {
    guard let absolute = Syscalls.resolvingLinks(package) else {
      throw PackageError(.noSuchEntry, "no such package", path: package.string)
    }
    let status: FileStatus
    do { status = try Syscalls.statusNoFollow(absolute) } catch {
      throw PackageError.opening(error, "cannot read status of", path: package.string)
    }
    guard status.kind == .directory else {
      throw PackageError(.notADirectory, "not a package (a package is a directory):", path: package.string)
    }
    let identity = try PackageIdentity.establish(at: absolute, adopting: adoptingIdentity)
    let root = (try? Syscalls.statusNoFollow(absolute)) ?? status
    self.init(path: absolute, device: root.device, inode: root.inode, identifier: identity?.identifier)
  }
}
