import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// The store of the package at `packagePath`, resolved as ``PackageFile`` resolves it: what DocumentSync's entry
  /// points below open. `lockHeld` says whether the caller holds the package's lock.
  static func store(ofPackageAt packagePath: FilePath, lockHeld: Bool) throws -> VersionStore {
    try VersionStore(packagePath: PackageLink.resolve(packagePath), lockHeld: lockHeld)
  }

  /// Keeps the package as it is on disk now as an unresolved conflict version naming `conflictPaths`: what a pull
  /// from a remote (DocumentSync) does with the local side before it takes the remote's side of overlapping
  /// changes. The caller holds the package's lock.
  /// - Throws: ``PackageError`` as a save's version keeping does.
  package static func keepConflictVersion(ofPackageAt packagePath: FilePath, conflictPaths: [String]) throws
    -> PackageVersion
  {
    let store = try Self.store(ofPackageAt: packagePath, lockHeld: true)
    return try store.keep(
      try PackageNode(contentsOf: store.packagePath), origin: .conflict, conflictPaths: conflictPaths)
  }
}

/// A conflict version as DocumentSync shares it with a remote: its root tree is its identity on every device
/// (the same state kept on two devices is the same tree objects, with the same hashes).
package struct SharedConflictVersion: Sendable, Hashable {
  /// The version's id in this package's store.
  package var id: Int
  /// Its root tree.
  package var tree: String
  /// When it was kept.
  package var date: Date
  /// The entries both sides changed.
  package var paths: [String]
  /// Whether it was resolved.
  package var isResolved: Bool
}

extension VersionStore {
  /// The conflict versions of the package at `packagePath`, resolved or not, oldest first; none when it has no
  /// version store.
  /// - Throws: ``PackageError`` if the store cannot be read.
  package static func conflictVersions(ofPackageAt packagePath: FilePath) throws -> [SharedConflictVersion] {
    let store = try Self.store(ofPackageAt: packagePath, lockHeld: false)
    guard store.exists else { return [] }
    // Read without settling pending versions first: those are saves' previous states, never conflict versions,
    // and settling the first one copies the whole package into the store (every file read), which made the
    // push after a package's first save read every file (issue 40). The settle a save starts does it instead.
    return try store.listing().records.filter { $0.version.origin == .conflict }.map {
      SharedConflictVersion(
        id: $0.version.id, tree: $0.rootTree, date: $0.version.date, paths: $0.version.conflictPaths,
        isResolved: $0.version.isResolved)
    }
  }

  /// Keeps `root` (a model tree: another device's conflict version, built from the remote's objects) as an
  /// unresolved conflict version naming `conflictPaths`. The caller holds the package's lock.
  /// - Returns: The version and its root tree.
  /// - Throws: ``PackageError`` as a save's version keeping does.
  package static func keepConflictVersion(
    ofPackageAt packagePath: FilePath, root: PackageNode, conflictPaths: [String]
  ) throws -> SharedConflictVersion {
    let store = try Self.store(ofPackageAt: packagePath, lockHeld: true)
    let version = try store.keep(root, origin: .conflict, conflictPaths: conflictPaths)
    return SharedConflictVersion(
      id: version.id, tree: try store.record(version.id).rootTree, date: version.date, paths: conflictPaths,
      isResolved: false)
  }

  /// Marks resolved the unresolved conflict versions `ids` (resolved on another device). The caller holds the
  /// package's lock.
  /// - Throws: ``PackageError`` if a record cannot be read or written.
  package static func markConflictsResolved(ofPackageAt packagePath: FilePath, ids: [Int]) throws {
    let store = try Self.store(ofPackageAt: packagePath, lockHeld: true)
    for id in ids {
      var record = try store.record(id)
      guard !record.version.isResolved else { continue }
      record.version.isResolved = true
      try store.write(record)
    }
  }

  /// The file of the stored object `hash` (a blob's bytes, or a tree object's text) of the package at
  /// `packagePath`'s store: what a push uploads of a conflict version.
  package static func objectFile(ofPackageAt packagePath: FilePath, hash: String) throws -> FilePath {
    try Self.store(ofPackageAt: packagePath, lockHeld: false).objectPath(hash)
  }
}

extension VersionStore {
  /// The line-wise three-way merge (diff3) a merging save makes of a text file both sides changed, for
  /// DocumentSync's pull: `nil` if a side is not text or the changes overlap.
  package static func mergeText(base: Data, ours: Data, theirs: Data) -> Data? {
    TextMerge.merge(base: base, ours: ours, theirs: theirs)
  }
}
