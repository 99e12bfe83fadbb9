import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The package's versions, oldest first, each in the shape `docpkg versions list --json` gives it
/// (``/DocumentPackage/VersionSummary``): saved, conflict (resolved or not), with entries not kept; a version whose
/// record is damaged, or that is pending and cannot be settled, is listed with its state and the reason. (The
/// damage `versions list` finds by reading every version's trees is not looked for here: the page asks often.)
package struct VersionTimeline: Sendable, Codable, Equatable {
  /// The versions, oldest first; empty for an archive or a package without versions.
  package var versions: [VersionSummary]
  /// Whether restoring is allowed (`--allow-restore`, and a package on disk).
  package var restorable: Bool

  /// The timeline of `location`'s package.
  /// - Throws: ``/DocumentPackage/PackageError`` when the version store cannot be read.
  package init(of location: ServedLocation, restorable: Bool) throws {
    self.restorable = restorable
    guard let package = location.versionedPackage else {
      versions = []
      return
    }
    let store = try VersionStore(forPackageAt: package)
    let kept = try store.versions().map { VersionSummary($0) }
    let problems = try store.versionProblems().map { VersionSummary($0) }
    versions = (kept + problems).sorted { $0.id < $1.id }
  }
}
