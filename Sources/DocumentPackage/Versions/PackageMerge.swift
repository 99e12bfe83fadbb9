import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three-way merge of a model's unsaved changes into the package as another writer saved it:
/// what ``PackageFile/saveMerging()`` and a `Document` reacting to an outside change both do.
///
/// The base is what the model loaded; ours, its unsaved changes (`OwnChanges`: each entry it set
/// or removed, with the `lstat` it was loaded with); theirs, the package on disk now, read as a
/// new tree. Each change is decided by ``MergeDecision`` (see `ThreeWayMerge.swift`): ours
/// changed it, theirs changed it when the path's `lstat` differs from the loaded one (the rule of
/// `DiskStamp.swift`), and the sides agree when both removed it. Taken (`ours`, `same`): ours
/// is applied to theirs' tree. A `conflict` between two text files whose base the version store
/// holds is merged line-wise (`TextMerge`) when the hunks do not overlap; any other conflict, or
/// a change that cannot be applied to theirs' tree, is a conflict of the merge. The directory rule
/// is `setNode`'s: a change below a directory theirs removed creates it again.
struct PackageMerge {
  /// One change the merge takes: ours, or the line-wise merge of both sides' contents.
  struct Step {
    var change: OwnChanges.Change
    var merged: Data?
  }

  /// The changes taken, in path order.
  private(set) var steps: [Step] = []
  /// The changes both sides made differently (our side of each).
  private(set) var conflicts: [OwnChanges.Change] = []
  /// The text files both sides changed, merged line-wise.
  private(set) var mergedPaths: [String] = []

  var conflictPaths: [String] { conflicts.map(\.path) }

  /// Merges `own` into `theirs`, the package at `packagePath` as it is on disk now, applying
  /// each change taken to `theirs` as it goes.
  /// - Parameter store: The package's version store, where the base of a text file both sides
  ///   changed may be found; nil: no line-wise merges.
  init(_ own: OwnChanges, into theirs: PackageNode, packagePath: FilePath, store: VersionStore?) {
    // Where theirs changed an entry ours moved or renamed: what theirs has there (nil: removed), looked up before a
    // step changes theirs' tree; one `lstat` per moved entry, a lookup only where theirs changed it.
    var theirsWhereMoved: [String: PackageNode?] = [:]
    for change in own.changes {
      guard let from = change.from,
        (try? Syscalls.statusNoFollow(packagePath.appending(from.path))).differs(from: from.base)
      else { continue }
      theirsWhereMoved[from.path] = .some(try? theirs.nodeIfPresent(at: from.path))
    }
    for var change in own.changes {
      if let from = change.from, let atOrigin = theirsWhereMoved[from.path] {
        // Unchanged by ours but for the move, theirs goes where ours put it (a rename carries the other writer's
        // contents along); removed by theirs, or changed by both, it is a conflict (taking ours would drop theirs).
        guard let node = change.node, node.edits.isEmpty, let moved = atOrigin, moved.kind == node.kind
        else {
          conflicts.append(change)
          continue
        }
        change.node = moved
      }
      let now = try? Syscalls.statusNoFollow(change.path.isEmpty ? packagePath : packagePath.appending(change.path))
      let decision = MergeDecision(
        oursChanged: true, theirsChanged: now.differs(from: change.base), sidesAgree: change.node == nil && now == nil)
      var step = Step(change: change, merged: nil)
      if decision == .conflict {
        guard let merged = Self.textMerge(change, now: now, theirs: theirs, store: store) else {
          conflicts.append(change)
          continue
        }
        step.merged = merged
      }
      do { try Self.apply(step, to: theirs) } catch {
        conflicts.append(change)
        continue
      }
      steps.append(step)
      if step.merged != nil { mergedPaths.append(change.path) }
    }
  }

  /// Puts our side of the conflicts into `tree` too (theirs' tree with every step applied): the
  /// state kept as the conflict version, with all of ours on top of theirs.
  func applyConflicts(to tree: PackageNode) {
    for change in conflicts { try? Self.apply(Step(change: change, merged: nil), to: tree) }
  }

  /// Applies the steps taken to `tree` (theirs, read again: a `Document` replays them on its new
  /// model, as one undo step).
  func replay(onto tree: PackageNode) throws {
    for step in steps { try Self.apply(step, to: tree) }
  }

  /// The line-wise merge of a text file both sides changed, if its base is in `store` and the
  /// hunks do not overlap.
  private static func textMerge(
    _ change: OwnChanges.Change, now: FileStatus?, theirs: PackageNode, store: VersionStore?
  ) -> Data? {
    guard let node = change.node, node.kind == .file, let base = change.base, base.kind == .file, now?.kind == .file,
      let baseData = store?.contents(matching: base),
      let theirData = try? theirs.node(at: change.path).contents(), let ours = try? node.contents()
    else { return nil }
    return TextMerge.merge(base: baseData, ours: ours, theirs: theirData)
  }

  /// Puts our side of `step` (or its line-wise merged contents) into `tree`.
  private static func apply(_ step: Step, to tree: PackageNode) throws {
    let path = step.change.path
    guard let node = step.change.node else {
      if try tree.nodeIfPresent(at: path) != nil { _ = try tree.removeNode(at: path) }
      return
    }
    if let merged = step.merged {
      _ = try tree.setFile(at: path, contents: merged)
      try tree.node(at: path).permissions = node.permissions
      return
    }
    _ = try tree.setNode(try node.detachedCopy(), at: path)
  }
}
