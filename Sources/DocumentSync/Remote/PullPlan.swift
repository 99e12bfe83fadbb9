import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a pull brings in (``PackageSync/planPull(_:synced:before:)``), and its last step: the one atomic save.
struct PullPlan: Sendable {
  /// Every tree of the head's state, of the state last synced, and of the remote's new conflict versions.
  var trees: [String: TreeObject]
  /// The head's state, by path.
  let theirs: FlatTree
  /// The blobs of the bases of text files both sides changed (a line-wise merge reads them), with their sizes.
  let textBases: [String: Int64]

  /// The blobs the head's state names.
  var headBlobs: Set<String> { Set(theirs.values.filter { $0.kind == .file }.map(\.reference)) }

  /// Saves the merge into the package, with its lock held: on the package as it is now (rescanned), over
  /// `synced`'s state. A file both sides changed in different lines is merged line-wise; one changed differently
  /// on both sides makes the package's state an unresolved conflict version first, then takes the remote's side.
  /// The remote's new conflict versions (`conflicts`) are kept here too. The state replaced is kept as a version
  /// `holding` the files the remote keeps. Blocking: call it off the cooperative pool.
  /// - Parameter owner: Told to the package's monitors as this save's owner (a watch of this sync does not take
  ///   its own pull for a local save).
  /// - Throws: `PackageError` from the save, or when a name does not fit the package's file system.
  func save(
    packageAt packagePath: FilePath, folder: SyncFolder, synced: SyncedState?, conflicts: ConflictMerge,
    holding: RemoteHolding?, owner: ObjectIdentifier
  ) throws -> PackageSync.PullResult {
    let file = try PackageFile(at: packagePath, options: .holdLock)
    defer { file.close() }
    file.saveOwner = owner
    let now = try VersionStore.scan(packageAt: packagePath, lockHeld: true)
    var allTrees = trees
    for (hash, tree) in now.trees { allTrees[hash] = tree }
    let ours = try FlatTree(root: now.root, named: "the package", trees: allTrees)
    let base = try synced.map { try FlatTree(root: $0.tree, named: "the state last synced", trees: allTrees) } ?? [:]
    var merge = TreeMerge(base: base, ours: ours, theirs: theirs)
    // The downloads are removed after the save (`clearObjects`): the blobs one file uses are handed over to it.
    let applier = TreeApplier(objects: folder.objects, localBlobs: now.blobs, packagePath: packagePath, handOver: true)
    // Text files both sides changed in different lines: the line-wise merge a local merging save makes.
    var texts: [String: Data] = [:]
    for path in merge.conflicts {
      guard let baseEntry = TextConflict.mergeable(base: base[path], ours[path], theirs[path]),
        let merged = TextConflict.merge(
          base: baseEntry, ours: packagePath.appending(path), theirs: theirs[path]!, blobs: applier)
      else { continue }
      texts[path] = merged
    }
    merge.conflicts.removeAll { texts[$0] != nil }
    merge.merged += texts.keys.sorted()
    // Before anything is kept or written, on the package as it is now.
    try merge.result.checkNamesFit(in: folder, "cannot pull")
    var version: Int?
    if !merge.conflicts.isEmpty {
      version = try VersionStore.keepConflictVersion(ofPackageAt: packagePath, conflictPaths: merge.conflicts).id
    }
    // Another device's conflict versions, kept here too (before the save: their blobs may be the package's).
    _ = try conflicts.apply(to: packagePath, folder: folder, trees: allTrees, localBlobs: now.blobs)
    try applier.apply(merge.result, over: ours, to: file.root)
    for (path, data) in texts {
      _ = try file.root.setFile(at: path, contents: data)
      try file.root.setPermissions(theirs[path]!.permissions, at: path)
    }
    try file.save(options: [], previousStateHolding: holding)
    if let version { return .conflict(version: version, paths: merge.conflicts) }
    let fastForward = synced != nil && now.root == synced?.tree
    return fastForward ? .fastForwarded : .merged(paths: merge.merged.sorted())
  }
}
