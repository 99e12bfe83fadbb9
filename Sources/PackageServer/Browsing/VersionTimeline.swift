import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The package's versions, oldest first, as `docpkg versions list --json` has them: saved, conflict (resolved or
/// not), with entries not kept; a version whose record is damaged, or that is pending and cannot be settled, is
/// listed with its state and the reason.
package struct VersionTimeline: Sendable, Codable, Equatable {
  /// One version.
  package struct Item: Sendable, Codable, Equatable {
    /// Its id (`PACKAGE@ID`).
    package var id: Int
    /// `saved`, `conflict`, `damaged` or `pending`.
    package var state: String
    /// When it was kept, in seconds since 1970.
    package var date: Double?
    /// Whether a conflict version was resolved.
    package var resolved: Bool?
    /// The size of its files.
    package var size: Int64?
    /// The entries a conflict version disagrees on.
    package var conflictPaths: [String]?
    /// The entries the version could not keep.
    package var unkeptPaths: [String]?
    /// Why a damaged or pending version cannot be read.
    package var reason: String?
  }

  /// The versions, oldest first; empty for an archive or a package without versions.
  package var versions: [Item]
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
    let kept = try store.versions().map { version in
      Item(
        id: version.id, state: version.origin.rawValue, date: version.date.timeIntervalSince1970,
        resolved: version.isResolved, size: version.size,
        conflictPaths: version.conflictPaths.isEmpty ? nil : version.conflictPaths,
        unkeptPaths: version.unkeptPaths.isEmpty ? nil : version.unkeptPaths)
    }
    let problems = try store.versionProblems().map { problem in
      Item(
        id: problem.id, state: problem.state.rawValue, date: problem.date?.timeIntervalSince1970, reason: problem.reason
      )
    }
    versions = (kept + problems).sorted { $0.id < $1.id }
  }
}

extension VersionTimeline.Item {
  init(id: Int, state: String, date: Double?, reason: String) {
    self.id = id
    self.state = state
    self.date = date
    self.reason = reason
  }
}
