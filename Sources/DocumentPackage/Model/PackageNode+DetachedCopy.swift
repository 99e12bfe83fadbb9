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
    try detachedCopy { _, error in throw error }
  }

  /// A copy of this node with what can still be read: an entry that cannot (a directory never
  /// listed, or a file never read, gone from disk with its package; a file whose contents come
  /// from a file on disk that is gone) is left out of the copy and named in `leftOut` (its
  /// ``PackageNode/path``, sorted), rather than failing the copy.
  func carriedCopy() throws -> (copy: PackageNode, leftOut: [String]) {
    var leftOut: [String] = []
    let copy = try detachedCopy { entry, _ in leftOut.append(entry.path) }
    return (copy, leftOut.sorted())
  }

  /// The copy of ``detachedCopy()``, calling `unreadable` for each entry that cannot be read,
  /// which is then left out (this node itself, when it cannot be listed, is copied empty). (An
  /// explicit stack of the directories still to copy, not recursion: the depth is the package's.)
  private func detachedCopy(unreadable: (PackageNode, any Error) throws -> Void) throws -> PackageNode {
    let node = self
    func children(of directory: PackageNode) throws -> [PackageNode]? {
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
        // unread file of a deleted package cannot.
        try (source as? DiskFileSource)?.checkStillThere()
        copy = PackageNode(regularFileWithSource: source)
      case .onDisk:
        if let cached = node.cachedContents {
          copy = PackageNode(regularFileWithContents: cached)
        } else if let origin = node.origin {
          copy = PackageNode(regularFileWithSource: try DiskFileSource(path: origin.absolutePath))
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
