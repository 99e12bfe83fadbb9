#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One version as JSON describes it: the one shape of `docpkg versions list --json`'s items and of `docpkg
/// serve`'s `/api/versions`. A kept version has `id`, `state`, `date`, `origin`, `resolved`, `size`,
/// `conflictPaths`, and when they apply `unkeptPaths`, `remote` and `problems`; a version that cannot be read (a
/// damaged record, or pending and unsettled) has `id`, `state`, `date` when known, `record` and `reason`.
/// Absent fields are left out; the keys are sorted (a JSON encoder keeps no other order).
package struct VersionSummary: Sendable, Codable, Equatable {
  /// Its id (`PACKAGE@ID`).
  package var id: Int
  /// `saved`, `conflict`, `damaged` (its files or trees are, see ``problems``; or its record) or `pending`.
  package var state: String
  /// When it was kept, in seconds since 1970.
  package var date: Double?
  /// `saved` or `conflict`: where it came from, whatever its state.
  package var origin: String?
  /// Whether a conflict version was resolved.
  package var resolved: Bool?
  /// The size of its files.
  package var size: Int64?
  /// The entries a conflict version disagrees on.
  package var conflictPaths: [String]?
  /// The entries the version could not keep.
  package var unkeptPaths: [String]?
  /// The remote that holds its files, when they are not in the store.
  package var remote: String?
  /// What is damaged in its files or trees.
  package var problems: [String]?
  /// The record that cannot be read.
  package var record: String?
  /// Why it cannot be read.
  package var reason: String?

  /// A kept version; `damaged` when `problems` names what is damaged in it.
  package init(_ version: PackageVersion, problems: [String]? = nil) {
    id = version.id
    state = problems != nil ? "damaged" : version.origin.rawValue
    date = version.date.timeIntervalSince1970
    origin = version.origin.rawValue
    resolved = version.isResolved
    size = Int64(version.size)
    conflictPaths = version.conflictPaths
    unkeptPaths = version.unkeptPaths.isEmpty ? nil : version.unkeptPaths
    remote = version.remote
    self.problems = problems
  }

  /// A version whose record cannot be read.
  package init(_ problem: VersionProblem) {
    id = problem.id
    state = problem.state.rawValue
    date = problem.date?.timeIntervalSince1970
    record = problem.recordPath.string
    reason = problem.reason
  }

  /// The versions as JSON on one line: keys sorted, slashes as they are.
  package static func json(_ versions: [VersionSummary]) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(versions)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
  }
}
