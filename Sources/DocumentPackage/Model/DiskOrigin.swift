import SystemPackage

/// Where a loaded package lives on disk. Shared by every node loaded from it, so that moving
/// the package (save-as) re-roots every not-yet-loaded node at once.
final class PackageLocation {
  var root: FilePath
  /// Nodes loaded from this package and since removed from their directory in memory, kept until
  /// the next save so that it can notice if their files changed on disk meanwhile (a save that
  /// deletes them would otherwise lose that change silently).
  var detachedNodes: [PackageNode] = []
  init(root: FilePath) { self.root = root }
}

/// Where a node was loaded from, and what the file looked like then.
///
/// A node keeps its origin while it is moved or renamed inside the model, so an unchanged file
/// can still be read (and, when saving, hard-linked) from where it was loaded.
struct DiskOrigin {
  let location: PackageLocation
  /// The path relative to the package root; empty for the root itself.
  let relativePath: FilePath
  /// `lstat` of the file when it was listed (or last read).
  var status: FileStatus

  var absolutePath: FilePath {
    relativePath.isEmpty ? location.root : location.root.pushing(relativePath)
  }

  func child(_ entry: DirectoryEntry) -> DiskOrigin {
    DiskOrigin(location: location, relativePath: relativePath.appending(entry.name), status: entry.status)
  }
}
