/// The three-way merge of flattened trees, path by path: a path only one side changed takes that side; a path
/// both changed alike takes it; a path both changed differently is a conflict and takes `theirs` (the caller
/// keeps `ours` as a conflict version first). A missing base (never synced) makes every differing path a conflict.
struct ThreeWayMerge {
  var result: FlatTree = [:]
  var conflicts: [String] = []
  var merged: [String] = []

  init(base: FlatTree, ours: FlatTree, theirs: FlatTree) {
    let paths = Set(base.keys).union(ours.keys).union(theirs.keys)
    for path in paths.sorted() {
      let b = base[path]
      let o = ours[path]
      let t = theirs[path]
      let chosen: SyncEntry?
      if o == t {
        chosen = o
      } else if o == b {
        chosen = t
        merged.append(path)
      } else if t == b {
        chosen = o
      } else {
        chosen = t
        conflicts.append(path)
      }
      if let chosen { result[path] = chosen }
    }
    // A path kept whose directory was removed on the other side comes back with its directory.
    for path in result.keys {
      var parent = Substring(path)
      while let slash = parent.lastIndex(of: "/") {
        parent = parent[..<slash]
        if result[String(parent)] == nil {
          result[String(parent)] = SyncEntry(kind: .directory, mode: 0o755, size: 0, reference: "")
        }
      }
    }
  }
}
