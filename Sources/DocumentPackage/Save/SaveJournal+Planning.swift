import SystemPackage

/// Planning a journaled save: the model against what is on disk, directory by directory.
///
/// A directory the save leaves where it was loaded from, whose set of entries did not change, is
/// only descended into; any other (new, moved in the model, or with entries added, removed or
/// renamed) is listed on disk and reconciled: each entry on disk the model does not have is removed,
/// each of the model's entries is compared with what is on disk at its path. A file or link that is
/// not the unchanged one loaded from that very path is staged (written, or copied from where it was
/// loaded, into the journal folder by ``TreeBuilder``) and renamed over its path when the plan is
/// applied. Directories that are new get made; changed permissions and times get set, deepest first,
/// after everything below them is in place.
///
/// The steps come out in the order that keeps every step idempotent: removals, then new directories
/// (parents first), then staged files, then directory attributes.
extension SaveJournal {
  /// One directory or entry still to compare, on the explicit stack of the walk (no recursion: a
  /// package's depth is its own).
  private struct Pending {
    let node: PackageNode
    let path: [RawName]
    /// The path for messages and for comparing with where the node was loaded from.
    let shownPath: String
    /// What is on disk at `path` now: `nil` for nothing.
    let onDisk: NodeKind?
  }

  /// Plans the save of `root` to the package `names.package` in `parentFD`, staging into `journalFD`.
  /// - Throws: ``PackageError`` naming the entry that could not be read, listed or staged.
  mutating func plan(_ root: PackageNode, target: FilePath, parentFD: CInt, journalFD: CInt, builder: TreeBuilder)
    throws
  {
    var removals: [Step] = []
    var directories: [Step] = []
    var placements: [Step] = []
    var attributes: [Step] = []
    var staged = 0
    var digests: [Int: StagedDigest] = [:]
    func atOrigin(_ node: PackageNode, _ shownPath: String) -> Bool {
      guard let origin = node.origin, origin.location.root == target else { return false }
      return origin.relativePath == FilePath(shownPath)
    }
    let rootOnDisk: NodeKind?
    do {
      rootOnDisk =
        try Syscalls.exists(in: parentFD, names.package) ? try Syscalls.status(in: parentFD, names.package).kind : nil
    } catch {
      throw PackageError.io(error, "cannot read status of", path: target.string, context: "while saving")
    }
    var stack = [Pending(node: root, path: [], shownPath: "", onDisk: rootOnDisk)]
    while let item = stack.popLast() {
      let node = item.node
      let shown = item.shownPath.isEmpty ? target : target.appending(item.shownPath)
      guard node.kind == .directory else {
        if atOrigin(node, item.shownPath), node.edits.isEmpty, item.onDisk == node.kind { continue }
        if item.onDisk == .directory { removals.append(.removeDirectory(item.path)) }
        let stagedName = Self.stagedName(staged)
        try builder.build(node, in: journalFD, as: stagedName, path: item.shownPath)
        do {
          digests[staged] = try Self.stagedDigest(
            of: stagedName, in: journalFD, path: names.path(names.journal).appending(stagedName.string))
        } catch var error as PackageError {
          error.context = "while saving"
          throw error
        }
        placements.append(.place(staged, item.path))
        staged += 1
        continue
      }
      let inPlace = item.onDisk == .directory && atOrigin(node, item.shownPath)
      var onDisk: [RawName: NodeKind]? = nil  // the entries on disk, when the directory is reconciled
      var special = Set<RawName>()  // those of them the model does not hold (FIFOs, sockets, devices)
      if item.onDisk != .directory {
        if item.onDisk != nil {
          guard !item.path.isEmpty else {
            throw PackageError(.invalidArgument, "cannot save a package over a file:", path: target.string)
          }
          removals.append(.removeFile(item.path))
        }
        directories.append(.makeDirectory(item.path))
        onDisk = [:]
      } else if !inPlace || node.edits.contains(.membership) {
        onDisk = try listing(item.path, parentFD: parentFD, shown: shown, special: &special)
      }
      if !inPlace || node.edits.contains(.attributes) {
        let time = node.edits.contains(.membership) && !node.edits.contains(.attributes) ? nil : node.modificationTime
        attributes.append(.setAttributes(item.path, permissions: UInt32(node.permissions.rawValue), time: time))
      }
      guard let onDisk else {
        // In place, entries unchanged: only what was loaded below can have changed.
        for child in node.heldChildren?.values ?? [:].values {
          let childShown = item.shownPath.isEmpty ? child.name : item.shownPath + "/" + child.name
          var kind: NodeKind? = child.kind
          if !atOrigin(child, childShown) {
            kind = try status(item.path + [child.diskName], parentFD: parentFD, shown: target.appending(childShown))
          }
          stack.append(Pending(node: child, path: item.path + [child.diskName], shownPath: childShown, onDisk: kind))
        }
        continue
      }
      let children = try node.sortedChildren()
      let kept = Set(children.map(\.diskName))
      for (name, kind) in onDisk where !kept.contains(name) && !special.contains(name) {
        let path = item.path + [name]
        removals.append(kind == .directory ? .removeDirectory(path) : .removeFile(path))
      }
      for child in children.reversed() {
        let childShown = item.shownPath.isEmpty ? child.name : item.shownPath + "/" + child.name
        stack.append(
          Pending(
            node: child, path: item.path + [child.diskName], shownPath: childShown,
            onDisk: onDisk[child.diskName]))
      }
    }
    steps = removals + directories + placements + attributes.reversed()
    self.staged = digests
  }

  /// The entries of the package's directory at `path`, and their kinds.
  /// - Parameter special: Gets the names of the entries of kinds the model does not hold.
  private func listing(_ path: [RawName], parentFD: CInt, shown: FilePath, special: inout Set<RawName>) throws
    -> [RawName: NodeKind]
  {
    do {
      let fd = try Self.openDirectory(path[...], in: parentFD, package: names.package)
      defer { Syscalls.closeFile(fd) }
      var result: [RawName: NodeKind] = [:]
      for (name, type) in try Syscalls.entries(ofDirectory: fd) {
        let kind: NodeKind? =
          switch type {
          case .file: .file
          case .directory: .directory
          case .symlink: .symlink
          case .other, .unknown: try Syscalls.status(in: fd, name).kind
          }
        // Anything else (a FIFO, a socket, a device) is replaced like a file by an entry of the model of its name;
        // but it is not the model's: the plan leaves it where it is otherwise.
        result[name] = kind ?? .file
        if kind == nil { special.insert(name) }
      }
      return result
    } catch {
      throw PackageError.io(error, "cannot list directory", path: shown.string, context: "while saving")
    }
  }

  /// What is at `path` in the package now, `nil` for nothing.
  private func status(_ path: [RawName], parentFD: CInt, shown: FilePath) throws -> NodeKind? {
    do {
      let fd = try Self.openDirectory(path.dropLast(), in: parentFD, package: names.package)
      defer { Syscalls.closeFile(fd) }
      guard try Syscalls.exists(in: fd, path.last!) else { return nil }
      return try Syscalls.status(in: fd, path.last!).kind ?? .file
    } catch {
      throw PackageError.io(error, "cannot read status of", path: shown.string, context: "while saving")
    }
  }
}
