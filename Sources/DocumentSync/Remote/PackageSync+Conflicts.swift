import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Conflict versions every device sees (NSFileVersion's unresolved conflict versions, on every device).
//
// A conflict version is a state: its root tree (a version store tree, the same objects a push sends) is its
// identity on every device. The head lists the unresolved ones (`conflict TREE DATE PATH...`, RemoteHead), and
// their trees and blobs are on the remote like the head's own state.
//
// push: the package's unresolved conflict versions are the head's list. Those the remote lacks are uploaded
//       from the version store (their trees down to the subtrees the synced head has, and their blobs) before the
//       head moves. A package whose only change is its list (a pull kept a conflict version, or `versions resolve`
//       resolved one) is pushed: same tree, new list.
// pull: a three-way merge of the lists, by tree, with the list the head had at the last sync (`state/NAME`) as
//       base: a conflict the remote lists and this package neither has nor had in the base is fetched and kept
//       as a local unresolved conflict version; one this package has unresolved, the base listed and the remote
//       no longer lists was resolved elsewhere and is marked resolved here; one resolved here (in the base, no
//       longer unresolved here) is not fetched again, and the next push drops it from the list.
// A push needs the head's list to be what this package last synced (as it needs its tree): otherwise the
// remote has changes to pull first, and nothing another device listed or resolved is overwritten.

/// What a pull does to the package's conflict versions: the remote's conflicts it keeps here, and the local
/// ones resolved elsewhere.
struct ConflictMerge: Sendable {
  /// Conflicts the remote lists that this package has not seen: kept here as unresolved conflict versions.
  var toKeep: [RemoteConflict] = []
  /// Local unresolved conflict versions another device resolved: marked resolved here.
  var toResolve: [Int] = []

  var isEmpty: Bool { toKeep.isEmpty && toResolve.isEmpty }

  /// The merge of the remote's list `theirs` with this package's conflict versions `local`, over `base`.
  init(theirs: [RemoteConflict], local: [SharedConflictVersion], base: Set<String>) {
    let theirTrees = Set(theirs.map(\.tree))
    let known = Set(local.map(\.tree))
    toKeep = theirs.filter { !known.contains($0.tree) && !base.contains($0.tree) }
    toResolve = local.filter { !$0.isResolved && base.contains($0.tree) && !theirTrees.contains($0.tree) }.map(\.id)
  }

  /// Fetches the trees and blobs of ``toKeep`` (blobs the package holds, `localBlobs`, are not fetched).
  /// - Returns: The trees, with `trees`.
  func fetch(
    with sync: PackageSync, trees: [String: TreeObject], localBlobs: Set<String>
  ) async throws -> [String: TreeObject] {
    var all = trees
    var needed = Set<String>()
    var sizes = FlatTree()
    for conflict in toKeep {
      all = try await sync.fetchHeadTrees(RemoteHead(tree: conflict.tree, parent: nil, date: conflict.date), known: all)
      for (path, entry) in try FlatTree(root: conflict.tree, named: "conflict version \(conflict.tree)", trees: all)
      where entry.kind == .file {
        needed.insert(entry.reference)
        sizes["\(conflict.tree)/\(path)"] = entry
      }
    }
    needed.subtract(localBlobs)
    if !needed.isEmpty { try await sync.fetchBlobs(needed.sorted(), sizes: sizes, progress: nil) }
    return all
  }

  /// Keeps ``toKeep`` as unresolved conflict versions of the package and marks ``toResolve`` resolved. The caller
  /// holds the package's lock; the blobs are in the sync folder's `objects/` or the package (`localBlobs`).
  /// - Returns: The conflict versions kept.
  func apply(
    to packagePath: FilePath, folder: SyncFolder, trees: [String: TreeObject],
    localBlobs: [String: (path: String, size: Int64)]
  ) throws -> [SharedConflictVersion] {
    let applier = TreeApplier(objects: folder.objects, localBlobs: localBlobs, packagePath: packagePath)
    var kept: [SharedConflictVersion] = []
    for conflict in toKeep {
      let root = try PackageNode(directoryWithChildren: [:])
      try applier.apply(
        try FlatTree(root: conflict.tree, named: "conflict version \(conflict.tree)", trees: trees), over: [:], to: root
      )
      kept.append(
        try VersionStore.keepConflictVersion(ofPackageAt: packagePath, root: root, conflictPaths: conflict.paths))
    }
    try VersionStore.markConflictsResolved(ofPackageAt: packagePath, ids: toResolve)
    return kept
  }
}

extension PackageSync {
  /// The package's unresolved conflict versions, as a head lists them.
  func localConflicts() async throws -> [SharedConflictVersion] {
    let packagePath = folder.packagePath
    return try await BlockingIO.run { try VersionStore.conflictVersions(ofPackageAt: packagePath) }
  }

  /// The trees and blobs of the conflict versions `conflicts` that a push must send besides its own plan: walked
  /// in the version store from each root tree, stopping at trees the synced head has (`local`; nil: a repair,
  /// which trusts nothing) or the plan sends (`planned`); blobs the plan sends are left out.
  /// - Returns: Trees (subtrees first) with their bytes, and blobs with their file in the version store.
  func conflictObjects(
    _ conflicts: [SharedConflictVersion], local: LocalTrees?, plannedTrees: Set<String>, plannedBlobs: Set<String>
  ) async throws -> (trees: [(String, Data)], blobs: [(String, FilePath, Int64)]) {
    let packagePath = folder.packagePath
    return try await BlockingIO.run { () throws -> ([(String, Data)], [(String, FilePath, Int64)]) in
      var trees: [(String, Data)] = []
      var blobs: [(String, FilePath, Int64)] = []
      var seenBlobs = plannedBlobs
      var read: [String: Data] = [:]
      // The StoredTreeWalk of each tree once, post-order: subtrees before the trees naming them.
      var walk = StoredTreeWalk<Void>(
        .eachTree(skipping: plannedTrees),
        roots: conflicts.map { .init(name: "conflict version \($0.id)", hash: $0.tree) })
      while let step = walk.next() {
        switch step {
        case .enter(let at):
          guard local?.contains(at.hash) != true else { continue }
          let file = try VersionStore.objectFile(ofPackageAt: packagePath, hash: at.hash)
          guard let data = try LocalFiles.read(file), let tree = TreeObject(decoding: data) else {
            throw PackageError(
              .corrupt, "conflict version's tree object is missing or damaged:", path: file.string,
              context: "(\(walk.damage().place))")
          }
          for entry in tree.entries.values where entry.kind == .file && seenBlobs.insert(entry.reference).inserted {
            blobs.append(
              (
                entry.reference, try VersionStore.objectFile(ofPackageAt: packagePath, hash: entry.reference),
                entry.size
              ))
          }
          read[at.hash] = data
          walk.descend(into: tree.subdirectories)
        case .leave(let at):
          trees.append((at.hash, read.removeValue(forKey: at.hash)!))
        }
      }
      return (trees, blobs)
    }
  }
}

extension [SharedConflictVersion] {
  /// The unresolved ones, as a head lists them.
  var remoteConflicts: [RemoteConflict] {
    filter { !$0.isResolved }.map { RemoteConflict(tree: $0.tree, date: $0.date, paths: $0.paths) }
  }
}
