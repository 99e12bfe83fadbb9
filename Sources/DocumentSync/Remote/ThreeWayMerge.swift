import DocumentPackage

/// The three-way merge of flattened trees, path by path: a path only one side changed takes that side; a path
/// both changed alike takes it; a path both changed differently is a conflict and takes `theirs` (the caller
/// keeps `ours` as a conflict version first). A missing base (never synced) makes every differing path a conflict.
///
/// Times are part of an entry (see `TreeEntry`), but a change of time alone (a touch) never makes a conflict: a
/// path one side only touched takes the other side's entry, and a path both sides gave the same contents takes
/// the later time.
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
      let chosen: TreeEntry?
      if o == t {
        chosen = o
      } else if o == b {
        chosen = t
        merged.append(path)
      } else if t == b {
        chosen = o
      } else if let o, let t, o.contents == t.contents {
        chosen = t.time > o.time ? t : o
        if chosen == t { merged.append(path) }
      } else if let b, o?.contents == b.contents {
        chosen = t  // ours only touched it
        merged.append(path)
      } else if let b, t?.contents == b.contents {
        chosen = o  // theirs only touched it
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
          result[String(parent)] = TreeEntry(
            kind: .directory, permissions: [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute],
            time: TreeEntry.directoryTime, size: 0, reference: "", name: String(parent.split(separator: "/").last ?? "")
          )
        }
      }
    }
  }
}
