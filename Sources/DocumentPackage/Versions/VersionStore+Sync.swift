import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// Keeps the package as it is on disk now as an unresolved conflict version naming `conflictPaths`: what a pull
  /// from a remote (DocumentSync) does with the local side before it takes the remote's side of overlapping
  /// changes. The caller holds the package's lock.
  /// - Throws: ``PackageError`` as a save's version keeping does.
  package static func keepConflictVersion(ofPackageAt packagePath: FilePath, conflictPaths: [String]) throws
    -> PackageVersion
  {
    let resolved = PackageFile.resolve(packagePath)
    let store = try VersionStore(packagePath: resolved, lockHeld: true)
    return try store.keep(try PackageNode(contentsOf: resolved), origin: .conflict, conflictPaths: conflictPaths)
  }
}

extension VersionStore {
  /// The line-wise three-way merge (diff3) a merging save makes of a text file both sides changed, for
  /// DocumentSync's pull: `nil` if a side is not text or the changes overlap.
  package static func mergeText(base: Data, ours: Data, theirs: Data) -> Data? {
    TextMerge.merge(base: base, ours: ours, theirs: theirs)
  }
}
