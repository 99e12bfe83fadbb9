#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored state of a package, as ``VersionStore/versions()`` lists it: NSFileVersion's
/// "other version" or "unresolved conflict version".
public struct PackageVersion: Hashable, Sendable {
  /// Where a version came from.
  public enum Origin: String, Hashable, Sendable {
    /// The state a save (or restore) replaced.
    case saved
    /// The state a writer wanted to save when it conflicted with another writer's save:
    /// the package as that other writer saved it, with this writer's edits on top.
    case conflict
  }

  /// The version's identifier in its store: a number, increasing with each version kept.
  public var id: Int
  /// When the version was kept.
  public var date: Date
  /// Whether it is a previous state or a conflicting state.
  public var origin: Origin
  /// Whether a conflict version was resolved (always true for saved versions).
  public var isResolved: Bool
  /// The total size of the version's files in bytes (what a copy would take, not what the store takes).
  public var size: Int64
  /// For a conflict version: the entries both writers changed.
  public var conflictPaths: [String]
  /// The entries this version could not keep, empty for a whole version: files written in place
  /// (or replaced) after the save that kept this version and before the store had its own copy
  /// (see ``PackageFile/defersVersionCopies``), and directories whose entries changed then (a
  /// trailing `/`: entries removed from it are missing). The version has none of these entries;
  /// `docpkg check` reports them.
  public var unkeptPaths: [String] = []
  /// The remote (DocumentSync) that holds those of the version's files the store has no copy of, or nil when
  /// the store holds them all. A pull keeps the state it replaces this way: the files that are also in the
  /// remote's state stay there, and only the files changed on this device are copied (a pull of a small change
  /// to a large package costs no copy of it). Reading such a file before it was fetched fails with code
  /// ``PackageError/Code/onRemote``; DocumentSync's `PackageSync.fetchVersion(_:)` (`docpkg remote fetch`, which
  /// `docpkg versions show` and `restore` run for you) downloads them into the store, checked against their
  /// SHA-256.
  public var remote: String? = nil
}
