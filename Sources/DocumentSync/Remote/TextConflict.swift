import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file both sides of a pull changed: merged line-wise (diff3, the merge a local merging save makes) when all
/// three sides are text files of at most ``sizeLimit`` bytes and the changes do not overlap.
enum TextConflict {
  /// Files bigger than this are not merged line-wise (a conflict version keeps the local side).
  static let sizeLimit: Int64 = 8 << 20

  /// The base entry when base, ours and theirs are all regular files small enough to merge.
  static func mergeable(base: TreeEntry?, _ ours: TreeEntry?, _ theirs: TreeEntry?) -> TreeEntry? {
    guard let base, let ours, let theirs else { return nil }
    for entry in [base, ours, theirs] where entry.kind != .file || entry.size > sizeLimit { return nil }
    return base
  }

  /// The merged bytes, or nil when a side is not text, cannot be read, or the changes overlap.
  static func merge(base: TreeEntry, ours: FilePath, theirs: TreeEntry, blobs: TreeApplier) -> Data? {
    guard let baseData = try? blobs.contents(base.reference),
      let theirData = try? blobs.contents(theirs.reference),
      let ourData = try? LocalFiles.read(ours, limit: sizeLimit)
    else { return nil }
    return VersionStore.mergeText(base: baseData, ours: ourData, theirs: theirData)
  }
}
