import DocumentPackage

/// A pull's three-way merge of flattened trees: the package's one merge (`ThreeWayMerge`) over the entries'
/// contents, so that a change of time alone (a touch) never makes a conflict. Each merged path then takes the
/// entry, time included, of the side its contents came from; where both sides have those contents, the later
/// time. A missing base (never synced) makes every path whose contents differ a conflict.
struct TreeMerge {
  /// The merged tree: conflicting paths hold theirs.
  var result: FlatTree = [:]
  /// The paths both sides changed differently, sorted.
  var conflicts: [String]
  /// The paths that took their side's entry (contents or a later time), sorted.
  var merged: [String]

  init(base: FlatTree, ours: FlatTree, theirs: FlatTree) {
    let byContents = ThreeWayMerge(
      base: base.mapValues(\.contents), ours: ours.mapValues(\.contents), theirs: theirs.mapValues(\.contents),
      directory: TreeEntry(
        kind: .directory, permissions: [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute],
        time: TreeEntry.directoryTime, size: 0, reference: "", name: ""))
    conflicts = byContents.conflicts
    var merged = Set(byContents.merged)
    for (path, contents) in byContents.result {
      let mine = ours[path].flatMap { $0.contents == contents ? $0 : nil }
      let their = theirs[path].flatMap { $0.contents == contents ? $0 : nil }
      switch (mine, their) {
      case (let mine?, let their?):
        result[path] = their.time > mine.time ? their : mine
        if their.time > mine.time { merged.insert(path) }
      case (let mine?, nil): result[path] = mine
      case (nil, let their?): result[path] = their
      case (nil, nil):
        // A directory the merge brought back for an entry kept below it.
        var directory = contents
        directory.name = String(path.split(separator: "/").last ?? "")
        result[path] = directory
      }
    }
    self.merged = merged.sorted()
  }
}
