import SystemPackage

/// Something that changed on disk, in a package opened for editing, since the model loaded it:
/// another program wrote to the package meanwhile. ``PackageFile/save(options:)`` refuses to
/// overwrite such changes (code ``PackageError/Code-swift.struct/conflict``);
/// ``PackageFile/outsideChanges()`` lists them.
public struct OutsideEntryChange: Hashable, Sendable, CustomStringConvertible {
  /// How an entry changed.
  public enum Kind: String, Hashable, Sendable {
    /// A file's or link's size, modification time or permissions changed (same inode), or a
    /// directory's entries were added, removed or renamed (its time changed).
    case modified
    /// The entry is gone from where it was loaded.
    case removed
    /// Another file or directory is now at the path (another inode, or another kind): typically
    /// another program's atomic save. For the package root, the whole package was replaced.
    case replaced
  }

  /// The entry's path in the package as it was loaded (`Data/a.txt`); empty for the package itself.
  public var path: String
  /// How it changed.
  public var kind: Kind

  /// Creates a change record.
  public init(path: String, kind: Kind) {
    self.path = path
    self.kind = kind
  }

  /// `modified Data/a.txt`; `modified the package folder` for the package itself (an entry added, removed or
  /// renamed at its top).
  public var description: String { "\(kind.rawValue) \(path.isEmpty ? "the package folder" : path)" }
}

/// Compares what a model loaded with the disk, one `lstat` per loaded node.
///
/// Looked at: every node loaded from `location` that is still in the tree, and those removed
/// from it since the last save (``PackageLocation/detachedNodes``) — or, for the check a save that
/// replaces one entry makes just before its commit point (`replacing`), what that save rebuilds or
/// relies on: the entry and what the model loaded below it, each folder on the way to it (alone, as a
/// listed folder: an entry added, removed or renamed there shows) and the removed nodes (the whole
/// model was checked before the save began; a change elsewhere since is not the save's to
/// overwrite: it stays as it is, and the next save finds it). By the one rule of
/// `DiskStamp.swift`: a file or link counts as changed when kind, inode, size, modification time
/// or permissions differ; a listed directory when those differ (adding, removing or renaming an
/// entry changes a directory's modification time), and so a directory an entry was removed from. A directory never listed is only checked to
/// be the same directory (and its permissions): whatever is inside it now is carried over as it
/// is, so nothing there can be lost.
/// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes; with `replacing`, for the *n* loaded
///   nodes of that entry, its depth and the removed nodes.
enum OutsideChangeDetector {
  static func changes(
    in root: PackageNode, location: PackageLocation, replacing entry: PackageNode? = nil
  ) -> [OutsideEntryChange] {
    var seen = Set<ObjectIdentifier>()
    var changes: [OutsideEntryChange] = []
    // An explicit stack, not recursion: the package's depth is not ours to choose.
    var pending: [PackageNode] = []
    func visit(_ node: PackageNode, alone: Bool = false) {
      guard seen.insert(ObjectIdentifier(node)).inserted else { return }
      if let origin = node.origin, origin.location === location {
        var relative: String { origin.relativePath.string }  // made only for a change
        // A directory whose entries the model changed without listing it is compared as listed.
        let listed = node.kind == .directory && (node.loadedChildren != nil || node.probedRemovals != nil)
        switch Result(catching: { () throws(Errno) in try origin.currentStatus() }) {
        case .failure(.noSuchFileOrDirectory), .failure(.notDirectory):
          changes.append(OutsideEntryChange(path: relative, kind: .removed))
          return
        case .failure:
          changes.append(OutsideEntryChange(path: relative, kind: .modified))
        case .success(let now):
          switch now.compared(with: origin.status, listing: listed) {
          case .replaced: changes.append(OutsideEntryChange(path: relative, kind: .replaced))
          case .modified: changes.append(OutsideEntryChange(path: relative, kind: .modified))
          case .unchanged: break
          }
        }
      }
      if !alone { node.appendLoadedChildren(to: &pending) }
    }
    var top = root
    var folders: [PackageNode] = []  // from the entry's folder up to the root
    var folder = entry?.parent
    while let on = folder {
      folders.append(on)
      folder = on.parent
    }
    if let entry, folders.last === root {
      top = entry
      for on in folders { visit(on, alone: true) }
    }
    for start in [top] + location.detachedNodes {
      pending.append(start)
      while let node = pending.popLast() { visit(node) }
    }
    return changes.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
  }
}
