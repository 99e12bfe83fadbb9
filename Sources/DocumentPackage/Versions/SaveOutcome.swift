/// What ``PackageFile/saveMerging()`` did.
public enum SaveOutcome: Hashable, Sendable {
  /// Nothing else had changed the package: saved as ``PackageFile/save(options:)`` does.
  case saved
  /// Another writer had saved meanwhile; both sides' changes were merged and saved. `paths`
  /// are the entries both sides changed that were merged line-wise (often empty: disjoint edits),
  /// then those another program made in a folder the save rebuilt after the save's last look at
  /// it, which the save took into the package after its swap (under a name of their own where the
  /// save took theirs: `NAME (outside change).EXT`), as they are named now.
  case merged(paths: [String])
  /// Both sides changed the same entries (`paths`): the package keeps the other writer's state,
  /// and this writer's state (the package with all its edits on top, its side winning) was
  /// stored as the unresolved conflict version `version`. The package is "in conflict": see
  /// ``PackageFile/resolveConflicts(keeping:removing:)``.
  case conflict(version: Int, paths: [String])
}
