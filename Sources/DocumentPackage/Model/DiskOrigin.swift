import SystemPackage

/// Where a loaded package lives on disk. Shared by every node loaded from it, so that moving
/// the package (save-as) re-roots every not-yet-loaded node at once.
final class PackageLocation {
  var root: FilePath
  /// Nodes loaded from this package and since removed from their directory in memory, kept until
  /// the next save so that it can notice if their files changed on disk meanwhile (a save that
  /// deletes them would otherwise lose that change silently).
  var detachedNodes: [PackageNode] = []
  /// Whether each lazy load from disk checks that it reads what the model recorded (see
  /// ``PackageNode/verifyLoad(of:path:)``): set by ``Document`` for its model.
  var verifiesLoads = false
  /// Set when a verified load met a newer saved state than the model was loaded from.
  var metNewerState = false
  init(root: FilePath, verifiesLoads: Bool = false) {
    self.root = root
    self.verifiesLoads = verifiesLoads
  }
}

/// Where a node was loaded from, and what the file looked like then.
///
/// A node keeps its origin while it is moved or renamed inside the model, so an unchanged file
/// can still be read (and, when saving, hard-linked) from where it was loaded.
/// The path is kept as the containing directory's path (shared by all siblings) plus a name,
/// so listing a directory builds no path per entry.
struct DiskOrigin {
  let location: PackageLocation
  /// The containing directory's path relative to the package root; empty for the root and its children.
  let directory: FilePath
  /// The name in `directory`; `nil` for the root itself.
  let name: FilePath.Component?
  /// `lstat` of the file when it was listed (or last read).
  var status: FileStatus

  init(
    location: PackageLocation, directory: FilePath = FilePath(""), name: FilePath.Component? = nil, status: FileStatus
  ) {
    self.location = location
    self.directory = directory
    self.name = name
    self.status = status
  }

  /// An origin at `relativePath` below the package root (empty for the root).
  init(location: PackageLocation, relativePath: FilePath, status: FileStatus) {
    self.init(
      location: location, directory: relativePath.removingLastComponent(), name: relativePath.lastComponent,
      status: status)
  }

  /// The path relative to the package root; empty for the root itself.
  var relativePath: FilePath {
    guard let name else { return directory }
    return directory.isEmpty ? FilePath(root: nil, [name]) : name.withPlatformString { Self.joined(directory, $0) }
  }

  var absolutePath: FilePath {
    let relative = relativePath
    return relative.isEmpty ? location.root : relative.withPlatformString { Self.joined(location.root, $0) }
  }

  /// `base` and `rest` joined by `/`, built as bytes and made a `FilePath` once: `FilePath`'s
  /// `appending` and `pushing` check the whole path for each component they add, which made
  /// loading a package 10,000 directories deep take cubic time.
  private static func joined(_ base: FilePath, _ rest: UnsafePointer<CChar>) -> FilePath {
    var bytes: [CChar] = base.withPlatformString { pointer in
      var bytes: [CChar] = []
      var index = 0
      while pointer[index] != 0 {
        bytes.append(pointer[index])
        index += 1
      }
      return bytes
    }
    if bytes.last != CChar(UInt8(ascii: "/")) { bytes.append(CChar(UInt8(ascii: "/"))) }
    var index = 0
    while rest[index] != 0 {
      bytes.append(rest[index])
      index += 1
    }
    bytes.append(0)
    return bytes.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
  }

  /// The origin of an entry listed in this directory. `directoryPath` is this origin's
  /// `relativePath`, computed once per listing.
  func child(_ entry: DirectoryEntry, in directoryPath: FilePath) -> DiskOrigin {
    DiskOrigin(location: location, directory: directoryPath, name: entry.rawName, status: entry.status)
  }
}
