import SystemPackage

// Which changes of a monitor's burst are news to the document (read with `Document+OutsideChanges`).
//
// A burst can hold this document's own save and another program's change together: a save's
// events and a `docpkg put` made right after it come within the monitor's quiet time (parent-folder
// events of the save, and the settling of its version, keep the burst open). The monitor marks
// such a burst as this process's save (`isOwnSave`: an inode one of its saves placed is in it)
// and lists every change. So the document judges each change itself, comparing the model with
// what the monitor saw at its path when it compared the burst (`Event.seen`: later changes come
// in later events) and with what is there now (the event may come after a later save of the
// document's own), by the one rule of `DiskStamp.swift`:
// - held: the model loaded (or last saved) the entry at that path and either is what it recorded
//   (changes made in memory since sit on that state), or the model listed the directory, has
//   nothing of that name in it, and either had nothing there. Its own save, or a state it has
//   already taken in: neither reacted to nor reported. The entry, and each folder on the way to
//   it, is looked for where the model's saved state has it: under its name, or renamed or removed
//   in memory since (the event may come after such an edit: the user renamed the folder just
//   saved before the monitor compared the save's burst), else what has that name now.
// - not held: the model loaded the entry (or listed its directory) and both had something else
//   there: news, whoever made it (another document of this process too).
// - unknown: in a directory the model never listed. News, unless the path is at or below an
//   entry this process's save put in place in the burst (`Event.ownPlaced`: the subtree or file
//   it swapped in, the package when it built a new root), whose entries the monitor reports too
//   when they differ from before (a directory the model renamed or moved without listing it; a
//   version restored). A save writes nothing else: elsewhere, in a directory never listed, files
//   keep their inodes, so a change there is another program's, in the same burst or not.
//   Inside what the save put in place, the save says what it carried from disk into the
//   directories the model never listed (`Event.carried`, ``CarriedEntries``): an entry there
//   that is not what it carried (another inode, a new name, a directory it did not carry on the
//   way) is another program's, made after the swap and before the monitor compared the burst
//   (a `docpkg put` into a folder just saved, on a busy machine), and is news too.
extension Document {
  /// The changes of `event` that are news to the model (see the comment above); package-level
  /// changes (moved, replaced, rescanned) are kept as they are, but for the package replaced by
  /// the new root of this document's own save (in a burst with another program's change).
  /// - Complexity: O(*c* · *d*) steps for *c* changes at depth *d* (at each, the folder's path is compared
  ///   with `memcmp`), one `lstat` per changed path.
  func changesNotHeld(in event: PackageMonitor.Event) -> [PackageMonitor.Change] {
    func isNews(_ held: Held, _ path: String) -> Bool {
      // Reported already, at this state, when the document found what no event had shown (`Document+OwnSaveGap`):
      // the entry, or a removal below a folder reported removed.
      if let seen = event.seen[path], !reportedWithoutEvent.isEmpty {
        if let reported = reportedWithoutEvent[path], seen == reported { return false }
        var folder = Substring(path)
        while seen == nil, let slash = folder.lastIndex(of: "/") {
          folder = folder[..<slash]
          if let reported = reportedWithoutEvent[String(folder)], reported == nil { return false }
        }
      }
      switch held {
      case .held: return false
      case .notHeld: return true
      case .unknown:
        guard event.ownPlaced.contains(where: { $0.isEmpty || $0 == path || path.hasPrefix($0 + "/") }) else {
          return true
        }
        // In what a save put in place: news unless it is what the save carried there.
        guard let seen = event.seen[path] else { return false }
        return event.carried.isSaved(path, inode: seen?.inode) == false
      }
    }
    return event.changes.filter { change in
      switch change.kind {
      case .packageReplaced: return !event.ownPlaced.contains("")  // not the new root of the document's own save
      case .packageMoved, .packageDeleted, .rescanned: return true
      case .renamed:
        let from = change.oldPath ?? ""
        return isNews(held(change.path, event), change.path) || isNews(held(from, event), from)
      case .added, .removed, .modified: return isNews(held(change.path, event), change.path)
      }
    }
  }

  private enum Held { case held, notHeld, unknown }

  /// Whether the model holds what `event` saw at `relative` (a path in the package), or what is
  /// on disk there now: the saved state its unsaved changes, if any, are made on. (What the
  /// event saw: the model's own save, which another program changed since; that change comes in
  /// a later event. What is there now: a save of the model's own that came after the event.)
  ///
  /// Walks the path's components once; a node's origin is compared with the path's bytes up to
  /// each level in place (``SavedPath``): no path is made per level, so a change 1,000 folders deep
  /// costs its depth, not its depth squared.
  private func held(_ relative: String, _ event: PackageMonitor.Event) -> Held {
    guard !relative.isEmpty, let location = editor.root.origin?.location else { return .unknown }
    let now = (try? location.currentStatus(of: relative)).map(PackageMonitor.SeenEntry.init)
    let candidates = event.seen[relative].map { [$0, now] } ?? [now]
    let components = relative.split(separator: "/")
    var bytes = relative
    return bytes.withUTF8 { bytes in
      var directory = editor.root
      var saved = SavedPath(bytes: bytes)
      for component in components.dropLast() {
        let name = String(component)
        saved.descend(to: component)
        guard let children = directory.loadedChildren else {  // never listed: only what a path walk probed is known
          guard let probed = directory.probedChildren?[name] else { return .unknown }
          directory = probed
          continue
        }
        // The folder the model's saved state has there, as for the entry below: renamed or removed
        // in memory since (the event may come after such an edit), else what has that name now.
        let child =
          children[name].flatMap { saved.isOrigin(of: $0) ? $0 : nil }
          ?? children.values.first { saved.isOrigin(of: $0) }
          ?? location.detachedNodes.last { saved.isOrigin(of: $0) && $0.kind == .directory }
          ?? children[name]
        guard let child else { return candidates.contains { $0 == nil } ? .held : .notHeld }
        directory = child
      }
      let last = components.last ?? ""
      saved.descend(to: last)
      guard let children = directory.loadedChildren else {
        guard let probed = directory.probedChildren?[String(last)], saved.isOrigin(of: probed) else { return .unknown }
        return candidates.contains { matches(probed, $0, location) } ? .held : .notHeld
      }
      // The node the model's saved state has there: under that name, or renamed in memory since
      // (in its directory), or removed; none when the model has nothing there or only a new node.
      let base =
        children[String(last)].flatMap { saved.isOrigin(of: $0) ? $0 : nil }
        ?? children.values.first { saved.isOrigin(of: $0) }
        ?? location.detachedNodes.last { saved.isOrigin(of: $0) }
      guard let base else { return candidates.contains { $0 == nil } ? .held : .notHeld }
      return candidates.contains { matches(base, $0, location) } ? .held : .notHeld
    }
  }

  /// A prefix of a changed entry's path (its bytes), one component longer at each level of
  /// ``held(_:_:)``'s walk, and whether a node was loaded (or last saved) there.
  private struct SavedPath {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the prefix's last component starts in `bytes`, and where it ends.
    private var start = 0
    private var end = 0
    private var name = Substring()

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The prefix one component longer: `component`, the next one of the path.
    mutating func descend(to component: Substring) {
      start = end == 0 ? 0 : end + 1
      end = start + component.utf8.count
      name = component
    }

    /// Whether `node`'s origin is at this prefix: its name is the last component and its folder's
    /// path is the bytes before it (compared in place: O(length), no path made).
    func isOrigin(of node: PackageNode) -> Bool {
      guard let origin = node.origin, let originName = origin.name else { return false }
      let folderCount = max(start - 1, 0)
      guard origin.directory.length == folderCount, originName.string == name else { return false }
      guard folderCount > 0 else { return true }
      return origin.directory.withPlatformString { folder in
        Syscalls.bytesEqual(
          UnsafeRawBufferPointer(start: folder, count: folderCount),
          UnsafeRawBufferPointer(start: bytes.baseAddress, count: folderCount))
      }
    }
  }

  /// Whether `node` was loaded (or last saved) at its path from `location` and `seen` is what it recorded.
  private func matches(_ node: PackageNode, _ seen: PackageMonitor.SeenEntry?, _ location: PackageLocation) -> Bool {
    guard let origin = node.origin, origin.location === location, let seen else { return false }
    return seen.isUnchanged(from: origin.status, listing: node.loadedChildren != nil)
  }
}
