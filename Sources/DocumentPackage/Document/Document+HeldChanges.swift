import SystemPackage

// Which changes of a monitor's burst are news to the document (read with `Document+OutsideChanges`).
//
// A burst can hold this document's own save and another program's change together: a save's
// events and a `docpkg put` made right after it come within the monitor's quiet time (parent-folder
// events of the save, and the settling of its version, keep the burst open). The monitor marks
// such a burst as this process's save (`isOwnSave`: an inode one of its saves placed is in it)
// and lists every change. So the document judges each change itself, by the one rule of
// `DiskStamp.swift`:
// - held: the model loaded (or last saved) the entry at that path and the disk still has what it
//   recorded (changes made in memory since sit on that state), or the model listed the directory,
//   has nothing of that name in it, and neither has the disk. Its own save, or a state it has
//   already taken in: neither reacted to nor reported.
// - not held: the model loaded the entry (or listed its directory) and the disk has something
//   else there: news, whoever made it (another document of this process too).
// - unknown: in a directory the model never listed. News unless the burst is this process's
//   save; an outside change there that shares a burst with such a save goes unreported, and
//   nothing is lost by it: the lazy model reads the new state when it gets there.
extension Document {
  /// The changes of `event` that are news to the model (see the comment above); package-level
  /// changes (moved, replaced, rescanned) are kept as they are.
  /// - Complexity: O(*c* · *d*) for *c* changes at depth *d*, one `lstat` per changed path.
  func changesNotHeld(in event: PackageMonitor.Event) -> [PackageMonitor.Change] {
    func isNews(_ held: Held) -> Bool { held == .notHeld || (held == .unknown && !event.isOwnSave) }
    return event.changes.filter { change in
      switch change.kind {
      case .packageMoved, .packageReplaced, .packageDeleted, .rescanned: return true
      case .renamed:
        let sides = [held(change.path), held(change.oldPath ?? "")]
        return sides.contains(.notHeld) || (sides.contains(.unknown) && !event.isOwnSave)
      case .added, .removed, .modified: return isNews(held(change.path))
      }
    }
  }

  private enum Held { case held, notHeld, unknown }

  /// Whether what is on disk at `relative` (a path in the package) is what the model holds
  /// there: the saved state its unsaved changes, if any, are made on.
  private func held(_ relative: String) -> Held {
    guard !relative.isEmpty, let location = editor.root.origin?.location else { return .unknown }
    let disk = try? Syscalls.statusNoFollow(location.root.appending(relative))
    var node = editor.root
    for component in relative.split(separator: "/") {
      guard let children = node.loadedChildren else { return .unknown }  // never listed
      guard let child = children[String(component)] else {
        // Removed in memory since the last save: its origin says what was there.
        if let removed = location.detachedNodes.last(where: { $0.origin?.relativePath == FilePath(relative) }) {
          return matches(removed, disk, location) ? .held : .notHeld
        }
        return disk == nil ? .held : .notHeld  // nothing of that name in the model: held if none on disk
      }
      node = child
    }
    return matches(node, disk, location) ? .held : .notHeld
  }

  /// Whether `node` was loaded (or last saved) at its path from `location` and `disk` is still what it recorded.
  private func matches(_ node: PackageNode, _ disk: FileStatus?, _ location: PackageLocation) -> Bool {
    guard let origin = node.origin, origin.location === location, let disk else { return false }
    return disk.compared(with: origin.status, listing: node.loadedChildren != nil) == .unchanged
  }
}
