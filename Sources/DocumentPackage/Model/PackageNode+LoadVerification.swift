import SystemPackage

// Verified lazy loads: how a model that lives long (a `Document`'s) never combines two saved states.
//
// A lazy model lists a directory or reads a file when it is first asked for, by path, possibly
// long after it loaded the rest. If another process saved the package meanwhile, that load would
// read the new state into a model of the old one. A model whose `PackageLocation.verifiesLoads` is
// set checks, at each load, that what it opened is what it recorded when it listed the entry:
// - a file: the descriptor it reads from is unchanged since it was recorded, by the one rule of
//   `DiskStamp.swift` (device, inode, size, modification time, permissions: no save writes a file
//   in place, so the same inode with the same size and time has the same bytes in both states);
// - a directory: the descriptor it lists is the recorded directory (the same rule without the
//   listing: every directory a save rebuilds is a new one), and after listing, the path still
//   names it (a save that exchanged it during the listing, then removed it, would show a partial
//   listing).
// By induction from the root, a model whose every load passed is one saved state (the parts it has
// not loaded yet are read from whatever state is on disk when it gets there, and that state agrees
// with everything loaded). A load that fails the check throws `changedOnDisk` and sets
// `metNewerState`: the `Document` then takes its outside-change path (reload, or merge its unsaved
// changes) and runs the read again on the new state. These are the same facts
// `OutsideChangeDetector` compares, so a failed check is always an outside change it reports.
// No lock is taken: the check costs one `fstat` per load, plus one `lstat` per directory listed.
extension PackageNode {
  /// Makes every later lazy load of this node's package check that it reads what the model recorded (see the
  /// comment above), and returns the node: a model that lives long (a ``Document``'s, `docpkg serve`'s) never mixes
  /// two saved states, and never reads through a folder another program swapped for a symbolic link since it was
  /// listed (a path is opened whole, and only its last component refuses a link: what is opened through the link
  /// is not the entry recorded, so it is refused, not read).
  package func verifyingLoads() -> PackageNode {
    origin?.location.verifiesLoads = true
    return self
  }

  /// Checks, for a model that verifies its loads, that `opened` (the status of the descriptor a
  /// load reads from) is the entry the model recorded; see the comment above.
  /// - Throws: ``PackageError`` with code `changedOnDisk` when another state is on disk now.
  func verifyLoad(of opened: FileStatus, path: FilePath) throws {
    guard let origin, origin.location.verifiesLoads else { return }
    if !opened.isUnchanged(since: origin.status) { throw newerState(path) }
  }

  /// After a verified listing: whether `path` still names the directory listed (status `listed`).
  func verifyStillNamed(_ listed: FileStatus, path: FilePath) throws {
    guard let origin, origin.location.verifiesLoads else { return }
    let now: FileStatus?
    if parent == nil { now = try? Syscalls.statusFollowing(path) } else { now = try? Syscalls.statusNoFollow(path) }
    guard let now, now.isSameEntry(as: listed) else { throw newerState(path) }
  }

  /// The error of a load that met a newer saved state; marks the location so that its owner reacts.
  private func newerState(_ path: FilePath) -> PackageError {
    origin?.location.metNewerState = true
    return PackageError(
      .changedOnDisk, "another program saved the package after this part was loaded (reload to read it):",
      path: path.string)
  }
}
