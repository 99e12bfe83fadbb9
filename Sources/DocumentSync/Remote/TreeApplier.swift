import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Changes a package's model tree from one flattened state to another: removals first (each at its topmost
/// path), then additions and changes in path order (parents before children). Files take their bytes from the
/// sync folder's downloaded blobs, or from the package's own file with the same hash; files and links take the
/// state's modification times (a directory's time is not part of a state: it gets the time of the save).
///
/// With `handOver` (a clone or a pull: the downloaded blobs are removed after the save), a downloaded blob that only
/// one file of the target uses is handed over to the save, which links it into the package instead of copying its
/// bytes; a blob several files use is copied for each, so that no two files of the package share an inode. What
/// reads a download before the save (a line-wise merge, another device's conflict version kept first) reads it
/// in place.
struct TreeApplier {
  let objects: FilePath
  let localBlobs: [String: (path: String, size: Int64)]
  let packagePath: FilePath
  var handOver = false

  func source(_ hash: String, handOver: Bool = false) throws -> DiskFileSource {
    let downloaded = objects.appending(hash)
    if let source = try? DiskFileSource(path: downloaded, handingOver: handOver) { return source }
    if let local = localBlobs[hash] { return try DiskFileSource(path: packagePath.appending(local.path)) }
    throw SyncError(.corrupt, "the package changed while it was pulled (pull again); no blob", key: hash)
  }

  func apply(_ target: FlatTree, over current: FlatTree, to root: PackageNode) throws {
    var removed: [String] = []
    for path in current.keys.sorted() {
      guard let now = current[path] else { continue }
      let wanted = target[path]
      if wanted == nil || wanted?.kind != now.kind || (now.kind == .symlink && wanted?.reference != now.reference) {
        if removed.contains(where: { path.hasPrefix($0 + "/") }) { continue }
        _ = try root.removeNode(at: path)
        removed.append(path)
      }
    }
    let removedSet = Set(removed)
    var uses: [String: Int] = [:]
    if handOver { for entry in target.values where entry.kind == .file { uses[entry.reference, default: 0] += 1 } }
    for path in target.keys.sorted() {
      let entry = target[path]!
      let existing = removedSet.contains(path) ? nil : current[path]
      if existing == entry { continue }
      switch entry.kind {
      case .directory:
        if existing == nil { _ = try root.makeDirectory(at: path) }
      case .file:
        if existing?.reference != entry.reference || existing?.kind != .file {
          let node = PackageNode(
            regularFileWithSource: try source(entry.reference, handOver: uses[entry.reference] == 1))
          _ = try root.setNode(node, at: path)
        }
      case .symlink:
        if existing == nil {
          _ = try root.setNode(PackageNode(symbolicLinkWithDestination: entry.reference), at: path)
        }
      }
      if existing?.permissions != entry.permissions, entry.kind != .symlink {
        try root.setPermissions(entry.permissions, at: path)
      }
      if entry.kind != .directory, existing?.time != entry.time || existing?.reference != entry.reference {
        try root.setModificationTime(entry.time, at: path)
      }
    }
  }
}

extension TreeApplier {
  /// The bytes of blob `hash` (downloaded, or a package file with that hash).
  func contents(_ hash: String) throws -> Data {
    if let data = try LocalFiles.read(objects.appending(hash)) { return data }
    if let local = localBlobs[hash], let data = try LocalFiles.read(packagePath.appending(local.path)) {
      return data
    }
    throw SyncError(.corrupt, "the package changed while it was pulled (pull again); no blob", key: hash)
  }
}
