// The three-way merge (read this first): the one decision every merge of this package takes.
//
// Three states of a package: the base (what both sides started from), ours and theirs. Per path:
// - neither side changed it, or both changed it alike: it stays as both have it (`unchanged`,
//   `same`);
// - only one side changed it: that side's entry is taken (`ours`, `theirs`);
// - both changed it, differently: a `conflict`. The caller may still resolve it (a text file both
//   changed in different lines is merged line-wise, `TextMerge`); otherwise the merged state takes
//   theirs at that path, and the caller keeps a state with ours there as a conflict version, so
//   that nothing either side did is lost.
// And one rule across paths: an entry kept below a directory the other side removed brings the
// directory back (an edit is never dropped because its folder went).
//
// Three callers, one decision: `ThreeWayMerge.init(base:ours:theirs:directory:)` merges flattened
// trees (path → entry) whole, as a pull does; `PackageMerge` merges a document's unsaved changes
// into the package another writer saved (`PackageFile.saveMerging()`, and a `Document` reacting
// to an outside change), where ours are the edits the model recorded and theirs what an `lstat`
// says changed since the load; both ask `MergeDecision` and follow the directory rule.

/// What a three-way merge does with one path (see the comment above).
package enum MergeDecision: Sendable, Equatable {
  /// Neither side changed it.
  case unchanged
  /// Both sides changed it alike.
  case same
  /// Only our side changed it: ours is taken.
  case ours
  /// Only their side changed it: theirs is taken.
  case theirs
  /// Both sides changed it, differently.
  case conflict

  /// The decision, from whether each side changed the path and whether the two sides now agree.
  package init(oursChanged: Bool, theirsChanged: Bool, sidesAgree: Bool) {
    switch (oursChanged, theirsChanged) {
    case _ where sidesAgree: self = oursChanged || theirsChanged ? .same : .unchanged
    case (false, false): self = .unchanged
    case (false, true): self = .theirs
    case (true, false): self = .ours
    case (true, true): self = .conflict
    }
  }

  /// The decision for a path that is `base`, `ours` and `theirs` on the three sides (nil: absent).
  package init<Entry: Equatable>(base: Entry?, ours: Entry?, theirs: Entry?) {
    self.init(oursChanged: ours != base, theirsChanged: theirs != base, sidesAgree: ours == theirs)
  }

  /// Whether the merged state takes our side's entry at the path (otherwise theirs, which for
  /// `unchanged` and `same` is ours too).
  package var takesOurs: Bool { self == .ours }

  /// The directories `path` is in, innermost first (`a/b/c` → `a/b`, `a`): those the directory
  /// rule brings back when the entry at `path` is kept.
  package static func parentDirectories(of path: String) -> [String] {
    var parents: [String] = []
    var parent = Substring(path)
    while let slash = parent.lastIndex(of: "/") {
      parent = parent[..<slash]
      parents.append(String(parent))
    }
    return parents
  }
}

/// The three-way merge of flattened trees (path → entry, any entry that tells equal states by
/// `==`): the merged tree, and the paths that conflict and that were taken from theirs.
///
/// A missing base (the sides never shared a state) makes every path that differs a conflict.
/// - Complexity: O(*n* log *n*) for *n* paths on the three sides.
package struct ThreeWayMerge<Entry: Equatable> {
  /// The merged tree: conflicting paths hold theirs.
  package var result: [String: Entry] = [:]
  /// The paths both sides changed differently, sorted.
  package var conflicts: [String] = []
  /// The paths taken from theirs (their changes that the merge brings to ours), sorted.
  package var merged: [String] = []

  /// Merges `ours` and `theirs`, both changed from `base`.
  /// - Parameter directory: The entry of a directory the directory rule brings back (a kept entry
  ///   below a directory the other side removed).
  package init(base: [String: Entry], ours: [String: Entry], theirs: [String: Entry], directory: Entry) {
    let paths = Set(base.keys).union(ours.keys).union(theirs.keys)
    for path in paths.sorted() {
      let decision = MergeDecision(base: base[path], ours: ours[path], theirs: theirs[path])
      switch decision {
      case .theirs: merged.append(path)
      case .conflict: conflicts.append(path)
      case .unchanged, .same, .ours: break
      }
      if let chosen = decision.takesOurs ? ours[path] : theirs[path] { result[path] = chosen }
    }
    for path in result.keys {
      for parent in MergeDecision.parentDirectories(of: path) where result[parent] == nil {
        result[parent] = directory
      }
    }
  }
}

extension ThreeWayMerge: Sendable where Entry: Sendable {}
