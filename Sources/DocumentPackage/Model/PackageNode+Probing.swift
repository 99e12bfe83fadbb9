import SystemPackage

// Looking one entry up without listing its directory: what keeps a one-file operation at the cost
// of its path, whatever the package holds.
//
// A path walk (`node(at:)`) through a directory read from disk and not listed yet looks up the one
// name it needs with one `lstat` (a "probe") instead of listing the directory (one `getdents` pass
// and one `lstat` per entry: 1,000 calls for a folder of 1,000 files, on every folder of the path).
// The node made is kept in the directory's `probedChildren`, so the walk and every later one find
// the same node, and when the directory is listed after all (`children()`), the probed nodes take
// their places in the listing: a node handed out once stays the node at its name, edits and all.
//
// A directory holding probed children counts as never listed: whatever else is in it is carried
// over as it is on disk (a save that must rebuild it lists it first), the outside-change check
// compares only the probed entries and the directory itself, and every walk over what is loaded
// (`appendLoadedChildren(to:)`) goes through the probed children as through a listing.
//
// A probed child removed from such a directory leaves it unlisted too: its name goes into the
// directory's `probedRemovals`, which a later lookup answers with nothing and a later listing leaves
// out. The save of that one removal renames the entry out of the directory (`EntryRemoval`); and
// since the directory's entries changed in the model, the outside-change check compares its
// modification time, as for a listed directory: another program's change to it is still a conflict.
//
// A probe finds only a name spelled byte for byte as on disk; anything else (no such name, a name
// equal to the one asked for only up to Unicode normalization, a name of raw bytes) falls back to
// listing the directory, so an answer never differs from the listing's. Only where the file system
// holds names apart byte for byte (`PackageLocation.looksUpNamesExactly`): on FAT or exFAT, `lstat`
// of `A.txt` finds `a.txt`, and the listing must say which name is there.
//
// A directory listed from a `DirectoryListingSource` (a version's tree) is looked into alike when its
// source can make one child alone (`child(named:)`): the node is kept as a probed child, and the
// listing made later holds it in its place.
//
// A model that verifies its loads (a `Document`'s, `docpkg serve`'s: see
// `PackageNode+LoadVerification.swift`) lists as before: it lives long, and what it must be able to
// say without the disk (a save-as of a package deleted under it names every entry it could not carry)
// needs the names of the folders it walked through. Probing is for the models of one command.
extension PackageNode {
  /// The child called `name`: from the listing when there is one, else by a probe (see the comment
  /// above), else from the listing made now.
  /// - Throws: As ``children()``.
  func lookUpChild(named name: String) throws -> PackageNode? {
    if let loadedChildren { return loadedChildren[name] }
    if let probed = probedChildren?[name] { return probed }
    if probedRemovals?.contains(name) == true { return nil }
    if kind == .directory, let listingSource, let found = try listingSource.child(named: name) {
      found.parent = self
      if probedChildren == nil { probedChildren = [:] }
      probedChildren![name] = found
      return found
    }
    if kind == .directory, listingSource == nil, let location = origin?.location, !location.verifiesLoads,
      location.looksUpNamesExactly, let probed = probe(name)
    {
      probed.parent = self
      if probedChildren == nil { probedChildren = [:] }
      probedChildren![name] = probed
      return probed
    }
    return try children()[name]
  }

  /// A node for `name` looked up alone on disk, or nil when the listing must answer (nothing of that
  /// exact name, a kind the model does not hold, a name not plain UTF-8, a directory made in memory).
  private func probe(_ name: String) -> PackageNode? {
    guard let origin, !name.unicodeScalars.contains(where: RawByteNames.isRawByte),
      let component = FilePath.Component(name), component.kind == .regular
    else { return nil }
    let directoryPath = origin.relativePath
    let childOrigin = DiskOrigin(
      location: origin.location, directory: directoryPath, name: component, status: origin.status)
    guard let status = try? childOrigin.currentStatus() else { return nil }
    let destination = status.kind == .symlink ? try? Syscalls.readLink(at: childOrigin.absolutePath) : nil
    guard let kind = status.kind, kind != .symlink || destination != nil else { return nil }
    var found = childOrigin
    found.status = status
    let node = PackageNode(kind: kind, name: name, permissions: status.permissions, origin: found)
    if let destination { node.linkDestination = destination }
    return node
  }

  /// `listed` (a listing from disk, by name and sorted) with the probed children in their places,
  /// those the listing lacks (gone from disk since they were probed) added, and the names taken out
  /// of the directory in memory (`probedRemovals`) left out: the model keeps every node it handed
  /// out and every edit, and a save reports what changed under it.
  func mergingProbedChildren(into listed: ([String: PackageNode], [PackageNode])) -> (
    [String: PackageNode], [PackageNode]
  ) {
    guard probedChildren?.isEmpty == false || probedRemovals?.isEmpty == false else { return listed }
    var (children, sorted) = listed
    var missing = false
    for name in probedRemovals ?? [] {
      guard let removed = children.removeValue(forKey: name) else { continue }
      removed.parent = nil
      missing = true
    }
    for (name, probed) in probedChildren ?? [:] {
      if let listedNode = children.updateValue(probed, forKey: name) {
        listedNode.parent = nil
      } else {
        missing = true
      }
    }
    sorted = missing ? children.values.sorted { $0.name.utf8Precedes($1.name) } : sorted.map { children[$0.name]! }
    return (children, sorted)
  }

  /// Lists every directory at or below this node that a probed child was removed from (its
  /// `probedRemovals`), so that a save building directories anew finds each as the model has it.
  /// - Complexity: O(*n*) for *n* loaded nodes, plus the listings.
  /// - Throws: As ``children()``.
  func listDirectoriesWithRemovals() throws {
    var pending: [PackageNode] = [self]  // an explicit stack: the depth is the package's
    while let node = pending.popLast() {
      if node.probedRemovals != nil { _ = try node.children() }
      node.appendLoadedChildren(to: &pending)
    }
  }

  /// Appends the children this directory holds in memory to `pending`: its listing, or, when it has
  /// none, the children probed in it. What every walk over the loaded nodes goes down by.
  func appendLoadedChildren(to pending: inout [PackageNode]) {
    if let loadedChildren {
      pending.append(contentsOf: loadedChildren.values)
    } else if let probedChildren {
      pending.append(contentsOf: probedChildren.values)
    }
  }

  /// The children this directory holds in memory (see ``appendLoadedChildren(to:)``), by name.
  var heldChildren: [String: PackageNode]? { loadedChildren ?? probedChildren }
}
