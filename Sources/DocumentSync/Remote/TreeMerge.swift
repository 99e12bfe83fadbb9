import DocumentPackage

/// A pull's three-way merge of flattened trees: the package's one merge (`ThreeWayMerge`) over whole entries,
/// times included, where a change of time alone (a touch) then never makes a conflict: of two sides that
/// changed a path, one that only touched it takes the other side's entry, and two with the same contents take
/// the later time. A missing base (never synced) makes every path whose contents differ a conflict.
struct TreeMerge {
  /// The merged tree: conflicting paths hold theirs.
  var result: FlatTree
  /// The paths both sides changed differently, sorted.
  var conflicts: [String] = []
  /// The paths that took their side's entry, sorted.
  var merged: [String]

  init(base: FlatTree, ours: FlatTree, theirs: FlatTree) {
    let directory = TreeEntry(
      kind: .directory, permissions: [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute],
      time: TreeEntry.directoryTime, size: 0, reference: "", name: "")
    let merge = ThreeWayMerge(base: base, ours: ours, theirs: theirs, directory: directory)
    result = merge.result
    var merged = Set(merge.merged)
    for path in merge.conflicts {
      let (b, o, t) = (base[path], ours[path], theirs[path])
      if let o, let t, o.contents == t.contents {
        result[path] = t.time > o.time ? t : o
        if t.time > o.time { merged.insert(path) }
      } else if let b, o?.contents == b.contents {
        merged.insert(path)  // ours only touched it: theirs, as the merge took
      } else if let b, t?.contents == b.contents {
        result[path] = o  // theirs only touched it
        guard o != nil else { continue }
        for parent in MergeDecision.parentDirectories(of: path) where result[parent] == nil {
          result[parent] = directory
        }
      } else {
        conflicts.append(path)
      }
    }
    // The directories the merge brought back carry their own names, as every entry of a flat tree does.
    for (path, entry) in result where entry.kind == .directory && entry.name.isEmpty {
      result[path]?.name = String(path.split(separator: "/").last ?? "")
    }
    self.merged = merged.sorted()
  }
}
