import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Changes a package's model tree from one flattened state to another: removals first (each at its topmost
/// path), then additions and changes in path order (parents before children). Files take their bytes from the
/// sync folder's downloaded blobs, or from the package's own file with the same hash.
///
/// With `handOver` (a clone: the downloaded blobs are removed after the save), a downloaded blob that only one file
/// uses is handed over to the save, which links it into the package instead of copying its bytes; a blob several
/// files use is copied for each, so that no two files of the package share an inode.
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
      if wanted == nil || wanted?.kind != now.kind || (now.kind == .symlink && wanted != now) {
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
      let permissions = FilePermissions(rawValue: .init(entry.mode))
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
        _ = try root.setNode(PackageNode(symbolicLinkWithDestination: entry.reference), at: path)
      }
      if existing?.mode != entry.mode, entry.kind != .symlink {
        try root.setPermissions(permissions, at: path)
      }
    }
  }
}

extension TreeApplier {
  /// The bytes of blob `hash` (downloaded, or a package file with that hash).
  func contents(_ hash: String) throws -> Data {
    let downloaded = objects.appending(hash)
    if let data = FileManager.default.contents(atPath: downloaded.string) { return data }
    if let local = localBlobs[hash],
      let data = FileManager.default.contents(atPath: packagePath.appending(local.path).string)
    {
      return data
    }
    throw SyncError(.corrupt, "the package changed while it was pulled (pull again); no blob", key: hash)
  }
}
