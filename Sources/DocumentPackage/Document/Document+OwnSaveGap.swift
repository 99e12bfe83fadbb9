import SystemPackage

// What no event shows around the document's own save (read with `Document+HeldChanges`).
//
// A save swaps in its new state: a folder, or the whole package, in new directories. The monitor
// watches those only when it compares the save's burst, a debounce later, and it lists lazily
// (`WatchedTree`): below the root it knows only the files events named. So another program's change
// in between, to a file in a folder the monitor never listed, comes in no event at all: the new
// folder had no watch yet, and the monitor's rescan had nothing to compare the file with. (A `docpkg
// rm` of a file the document had read, run as soon as the document's save returned: the document
// kept showing the file.)
//
// The model knows those files: the save re-based every node it had loaded on what it saved. So the
// burst of its own save is where the model's loaded nodes in the part the save put in place are
// compared with the disk, one `lstat` each (what the re-basing cost). Whatever differs was changed
// after the save by another program, and is news like any other change: reported, then reloaded or
// merged. Such a change may come in the next event too (made just after the monitor's new watches, or a
// removal, which leaves no time to tell): the state reported is kept for that event alone
// (`reportedWithoutEvent`), which is not reported again when it names the same state. Kept longer, it would hide a
// later change back to that state (a file removed, made again, removed again).
extension Document {
  /// The changes to what the model loaded in the parts `event`'s own save put in place that no
  /// change of `event` names (see the comment above); none for a burst of no own save.
  /// - Complexity: One `lstat` per loaded node under the placed entries (all of them for a whole save), a
  ///   listing of each folder there whose entries another program changed, and one of each folder the save
  ///   carried without the model listing it (what the save's carrying cost).
  func changesNoEventShowed(in event: PackageMonitor.Event) -> [PackageMonitor.Change] {
    guard event.isOwnSave, !event.ownPlaced.isEmpty, let location = editor.root.origin?.location else { return [] }
    var found: [OutsideEntryChange] = []
    if event.ownPlaced.contains("") {
      found = OutsideChangeDetector.changes(in: editor.root, location: location)
    } else {
      for placed in event.ownPlaced.sorted() {
        guard let node = loadedNode(at: placed) else { continue }  // renamed or removed in memory since
        found += OutsideChangeDetector.changes(in: editor.root, location: location, replacing: node)
      }
    }
    let named = Set(event.changes.map(\.path))
    var news: [PackageMonitor.Change] = []
    var paths = Set<String>()
    func add(_ kind: PackageMonitor.Change.Kind, _ path: String) {
      guard !named.contains(path), paths.insert(path).inserted else { return }
      news.append(PackageMonitor.Change(kind, path))
    }
    // What changed after the monitor compared the burst comes in an event of its own (its watches were set by then):
    // the modification time says when (not the change time, which this process's own links and removals of the
    // file's other names move). A time set back, or a removal, which leaves none, is named here: its event, if one
    // comes, names the same state, and is not reported again.
    func changedSinceCompared(_ status: FileStatus?) -> Bool {
      guard let status, let comparedAt = event.comparedAt else { return false }
      return status.modificationTime > comparedAt
    }
    for change in found {
      let now = try? location.currentStatus(of: change.path)
      // The root: only what was added to it is looked for, each entry by its own time (the monitor's listing of a
      // new root compares it with the root before the save, where an entry the save removed can be again under
      // the same inode number: another program's folder made in that name just after the save's swap, in an inode
      // the save freed, looks like what was there). The package itself replaced or gone is the monitor's to say.
      if change.path.isEmpty {
        guard change.kind == .modified, editor.root.loadedChildren != nil else { continue }
      } else if change.kind != .removed, now == nil || changedSinceCompared(now) {
        continue
      }
      if change.kind == .removed {
        add(.removed, change.path)
        continue
      }
      let folder = now?.kind == .directory ? node(at: change.path, throughLookups: true) : nil
      if let folder, folder.kind == .directory, folder.loadedChildren != nil {
        // A folder the model listed, its entries changed or the folder made anew (another program's save of a
        // folder above copies it: a new directory, the same entries): what it holds that the model did not is
        // named entry by entry, as the monitor names them. What was removed, renamed away or changed there is a
        // change of its own, found at the node the model loaded.
        let added = Self.entriesAdded(to: folder, at: change.path, location).filter { !changedSinceCompared($0.status) }
        // Made anew with other entries: named too, as the monitor names a folder replaced (so that its event, when
        // it comes, names nothing not reported here).
        let inside = change.path + "/"
        if change.kind == .replaced, !added.isEmpty || found.contains(where: { $0.path.hasPrefix(inside) }) {
          add(.modified, change.path)
        }
        for (name, _) in added { add(.added, change.path.isEmpty ? name : inside + name) }
        continue
      }
      if let folder, folder.kind == .directory, change.kind == .replaced, let was = folder.origin?.status,
        let now, now.modificationTime == was.modificationTime, now.permissions == was.permissions
      {
        // A folder the model never listed, made anew with the time and permissions it had: a copy of it (another
        // program's save of a folder above), its entries as they were as far as a folder's time tells. What the
        // model loaded in it is compared at its own nodes.
        continue
      }
      // A file changed, or a folder another program put in place: named as a whole, unless the monitor named what
      // is in it.
      let prefix = change.path + "/"
      if now?.kind == .directory, named.contains(where: { $0.hasPrefix(prefix) }) { continue }
      add(.modified, change.path)
    }
    // The folders the save carried from disk without the model listing them: the model knows nothing there, but
    // the save said what it put in each (`CarriedEntries`); another program's entry there is not that.
    for (folder, carried) in event.carried.byDirectory {
      guard !modelLooked(in: folder), !named.contains(where: { $0 == folder || $0.hasPrefix(folder + "/") }),
        let listed = try? Syscalls.listDirectory(location.root.appending(folder)).1.filter({ $0.status.kind != nil })
      else { continue }
      for entry in listed where carried[entry.name] != entry.status.inode && !changedSinceCompared(entry.status) {
        add(carried[entry.name] == nil ? .added : .modified, folder + "/" + entry.name)
      }
      let names = Set(listed.map(\.name))
      for name in carried.keys where !names.contains(name) { add(.removed, folder + "/" + name) }
    }
    rememberReported(news, at: location)
    return news
  }

  /// Keeps the state `changes` named as they are on disk now, for the next event alone (`reportedWithoutEvent`).
  func rememberReported(_ changes: [PackageMonitor.Change], at location: PackageLocation) {
    for change in changes {
      reportedWithoutEvent[change.path] = .some(
        (try? location.currentStatus(of: change.path)).map(PackageMonitor.SeenEntry.init))
    }
  }

  /// The entries of the folder at `relative` on disk that the model, which listed it (`folder`), did not have there.
  private static func entriesAdded(
    to folder: PackageNode, at relative: String, _ location: PackageLocation
  ) -> [(name: String, status: FileStatus)] {
    let path = relative.isEmpty ? location.root : location.root.appending(relative)
    // What the model lists: not FIFOs, sockets or devices (`PackageNode.children()`).
    guard let listed = try? Syscalls.listDirectory(path).1.filter({ $0.status.kind != nil }) else { return [] }
    var known = Set((folder.loadedChildren ?? [:]).values.compactMap { $0.origin?.name?.string })
    for node in location.detachedNodes where node.origin?.directory.string == relative {
      if let name = node.origin?.name?.string { known.insert(name) }
    }
    return listed.filter { !known.contains($0.name) }.map { ($0.name, $0.status) }
  }

  /// Whether the model looked into the folder at `relative` (listed it, or looked up or removed an entry there): its
  /// nodes say what is there, not a save's record of what it carried (which an earlier save of the burst may have made).
  private func modelLooked(in relative: String) -> Bool {
    guard let node = node(at: relative, throughLookups: true) else { return false }
    return node.loadedChildren != nil || node.probedChildren != nil || node.probedRemovals != nil
  }

  /// The node the model loaded at `relative` (model names), if every folder on the way was listed.
  private func loadedNode(at relative: String) -> PackageNode? { node(at: relative, throughLookups: false) }

  /// The model's node at `relative` (model names), found through listed folders and, with `throughLookups`, the
  /// entries looked up in folders not listed.
  private func node(at relative: String, throughLookups: Bool) -> PackageNode? {
    var node = editor.root
    for component in relative.split(separator: "/") {
      let name = String(component)
      guard let child = node.loadedChildren?[name] ?? (throughLookups ? node.probedChildren?[name] : nil) else {
        return nil
      }
      node = child
    }
    return node
  }
}
