import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Copies of a tree that belong to no package: what a merge, a save elsewhere and a copy are made of.
extension PackageNode {
  /// A copy of this node (and what is below it) that belongs to no tree, reading what it did.
  /// - Throws: ``PackageError`` naming the first entry that cannot be read.
  func detachedCopy() throws -> PackageNode {
    try detachedCopy(carrying: { _ in true }) { _, error in throw error }
  }

  /// A copy of this node with what can still be read: an entry that cannot (a directory never
  /// listed, or a file never read, gone from disk with its package; a file whose contents come
  /// from a file on disk that is gone) is left out of the copy and named in `leftOut` (its
  /// ``PackageNode/path``, sorted), rather than failing the copy.
  ///
  /// What is not in memory yet (a directory never listed, a file never read) is read from disk
  /// only from the folders the model loaded it from: the folder that holds it on disk must be
  /// the one recorded (same device and inode, the identity the outside-change checks compare).
  /// After another program put a different directory at the package's path (`rm -rf P; mv
  /// Other P`), its entries of the same names are not this package's: they are left out too.
  func carriedCopy() throws -> (copy: PackageNode, leftOut: [String]) {
    var leftOut: [String] = []
    let folders = RecordedFolders(of: self)
    let copy = try detachedCopy(carrying: folders.holdsOnDisk) { entry, _ in leftOut.append(entry.path) }
    return (copy, leftOut.sorted())
  }

  /// The copy of ``detachedCopy()``, calling `unreadable` for each entry that cannot be read,
  /// which is then left out (this node itself, when it cannot be listed, is copied empty); an
  /// entry not in memory yet is read from disk only if `carrying` says so, else it counts as
  /// unreadable. (An explicit stack of the directories still to copy, not recursion: the depth
  /// is the package's.)
  private func detachedCopy(
    carrying: (PackageNode) -> Bool, unreadable: (PackageNode, any Error) throws -> Void
  ) throws -> PackageNode {
    let node = self
    func notCarried(_ entry: PackageNode) -> PackageError {
      PackageError(
        .changedOnDisk, "not carried: the folder holding it on disk is not the one it was loaded from:",
        path: entry.path)
    }
    func children(of directory: PackageNode) throws -> [PackageNode]? {
      if !directory.isLoaded, !carrying(directory) {
        try unreadable(directory, notCarried(directory))
        return nil
      }
      do { return try directory.sortedChildren() } catch {
        try unreadable(directory, error)
        return nil
      }
    }
    let top = try Self.copyAlone(node)
    var pending: [(children: [PackageNode], copy: PackageNode)] = []
    if node.kind == .directory, let listed = try children(of: node) { pending.append((listed, top)) }
    while let (originals, copy) = pending.popLast() {
      for child in originals {
        let childCopy: PackageNode
        if child.kind == .file, !child.isLoaded, !carrying(child) {
          try unreadable(child, notCarried(child))
          continue
        }
        do { childCopy = try Self.copyAlone(child) } catch {
          try unreadable(child, error)
          continue
        }
        if child.kind == .directory {
          guard let listed = try children(of: child) else { continue }
          pending.append((listed, childCopy))
        }
        try copy.adopt(childCopy, as: child.name)
      }
    }
    return top
  }

  /// A copy of `node` alone: a directory without its children.
  private static func copyAlone(_ node: PackageNode) throws -> PackageNode {
    let copy: PackageNode
    switch node.kind {
    case .file:
      switch node.fileBody {
      case .data(let data): copy = PackageNode(regularFileWithContents: data)
      case .source(let source):
        // A file on disk may be gone since the node took it (the app's file, or an unread file
        // of the package that a merge replayed a rename of): it cannot be read then, as an
        // unread file of a deleted package cannot. (Read since, the package's file is kept.)
        if let cached = node.cachedContents {
          copy = PackageNode(regularFileWithContents: cached)
        } else {
          try (source as? DiskFileSource)?.checkStillThere()
          copy = PackageNode(regularFileWithSource: source)
        }
      case .onDisk:
        if let cached = node.cachedContents {
          copy = PackageNode(regularFileWithContents: cached)
        } else if let origin = node.origin {
          copy = PackageNode(regularFileWithSource: try DiskFileSource(packageFile: origin.absolutePath))
        } else {
          copy = PackageNode(regularFileWithContents: Data())
        }
      }
    case .symlink:
      copy = PackageNode(symbolicLinkWithDestination: node.symbolicLinkDestination)
    case .directory:
      copy = try PackageNode(directoryWithChildren: [:])
    }
    copy.permissions = node.permissions
    copy.modificationTime = node.modificationTime
    return copy
  }
}

/// The folders a model recorded (loaded or looked up), by path below the package root, and whether
/// each is still the folder on disk at that path: what ``PackageNode/carriedCopy()`` may read from.
private final class RecordedFolders {
  private var recorded: [FilePath: FileStatus] = [:]
  private var location: PackageLocation?
  /// Whether the folder at each path on disk now is the one recorded, once asked.
  private var stillThere: [FilePath: Bool] = [:]

  init(of root: PackageNode) {
    location = root.origin?.location
    var pending = [root]
    while let node = pending.popLast() {
      guard node.kind == .directory else { continue }
      if let origin = node.origin, origin.location === location { recorded[origin.relativePath] = origin.status }
      node.appendLoadedChildren(to: &pending)
    }
  }

  /// Whether `node`, not in memory yet, lies on disk in the folder it was recorded in.
  func holdsOnDisk(_ node: PackageNode) -> Bool {
    guard let origin = node.origin, let location, origin.location === location else { return false }
    if let known = stillThere[origin.directory] { return known }
    var same = false
    if let status = recorded[origin.directory] {
      let folder = origin.directory.isEmpty ? location.root : location.root.pushing(origin.directory)
      let now = origin.directory.isEmpty ? try? Syscalls.statusFollowing(folder) : try? Syscalls.statusNoFollow(folder)
      same = now.map { $0.device == status.device && $0.inode == status.inode } ?? false
    }
    stillThere[origin.directory] = same
    return same
  }
}
