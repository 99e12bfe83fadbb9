import SystemPackage

extension PackageNode {
  /// Refuses, before anything is written, a save of this tree at `target` whose names the file system
  /// there cannot hold: a name it refuses, or two sibling names it takes for one (``FileSystemNaming``:
  /// on FAT, exFAT or APFS, `a.txt` and `A.txt`).
  ///
  /// Only what the save writes anew is compared: the children of directories made in memory, of
  /// directories whose entries changed (added, removed or renamed), and of directories loaded from
  /// another file system (a save-as, a folder added from elsewhere), whose parts never listed are then
  /// listed from disk, as the save will carry them over. A directory loaded from this file system with
  /// its entries unchanged holds names the file system holds already. On a file system that holds
  /// every name (ext4, xfs, btrfs, tmpfs) nothing is walked: the file system is probed once per process,
  /// then looked up. The probe runs in the save's temporary name (`.NAME.docpkg-tmp`, a directory made
  /// and removed for it: ``FileSystemNaming/of(directoryFD:probingIn:)``), so that a save killed while
  /// probing leaves only what recovery removes. The caller holds the package's lock.
  /// - Throws: ``PackageError`` with code `invalidName`, naming the entry, the sibling it clashes with
  ///   if any, and why; code `io` if the probe's directory cannot be made.
  /// - Complexity: O(*n*) for *n* loaded nodes, plus the names of the directories compared.
  func checkNamesFit(savingTo target: FilePath) throws {
    let names = try SiblingNames(of: target)
    let parentFD = try Saver.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    let check: SiblingNameCheck
    do { check = try SiblingNameCheck(forDirectory: parentFD, at: names.parent, probingIn: names.temporary) } catch {
      throw PackageError.io(
        error, "cannot create directory", path: names.path(names.temporary).string, context: "while saving")
    }
    try checkNamesFit(savingTo: target, check)
  }

  /// ``checkNamesFit(savingTo:)`` with the rules and file system of `check`.
  func checkNamesFit(savingTo target: FilePath, _ check: SiblingNameCheck) throws {
    let parent = target.removingLastComponent().isEmpty ? FilePath(".") : target.removingLastComponent()
    guard check.isNeeded, let device = check.identity?.device else { return }
    if let name = target.lastComponent?.string, let problem = check.naming.problem(with: name) {
      throw NameClash(path: name, reason: problem, fileSystem: check.fileSystem).error(
        "cannot save", "in '\(parent.string)'")
    }
    let place = "in '\(target.string)'"
    var pending: [PackageNode] = [self]  // an explicit stack: the depth is the package's
    while let node = pending.popLast() {
      let fromElsewhere = node.origin.map { $0.status.device != device } ?? true
      guard let children = node.loadedChildren else {
        if fromElsewhere, let origin = node.origin, let clash = check.clashOnDisk(below: origin.absolutePath) {
          throw clash.below(path(of: node)).error("cannot save", place)
        }
        // Never listed, but a path walk may have probed children, with changes below them.
        for child in node.probedChildren?.values ?? [:].values where child.kind == .directory { pending.append(child) }
        continue
      }
      if fromElsewhere || node.edits.contains(.membership) {
        // The entries on disk first, then the new ones in byte order: a clash names the new entry, and
        // the same one every time.
        var kept: [String] = []
        var added: [String] = []
        for (name, child) in children {
          if let origin = child.origin, !fromElsewhere, origin.status.device == device, origin.name?.string == name {
            kept.append(name)
          } else {
            added.append(name)
          }
        }
        added.sort { $0.utf8Precedes($1) }
        if let clash = check.clash(among: [kept, added].joined(), in: "") {
          throw clash.below(path(of: node)).error("cannot save", place)
        }
      }
      for child in children.values where child.kind == .directory { pending.append(child) }
    }
  }

  /// The path of `node`, below this node, from this node (for messages).
  private func path(of node: PackageNode) -> String {
    var names: [String] = []
    var current = node
    while current !== self, let parent = current.parent {
      names.append(current.name)
      current = parent
    }
    return names.reversed().joined(separator: "/")
  }
}

extension SiblingNameCheck {
  /// The first clash in the directory at `path` on disk or below it; paths are relative to `path`.
  ///
  /// Listed with an explicit stack of the directories open on the way down. A directory that cannot
  /// be read is passed over (the save reports its own error when it gets there).
  func clashOnDisk(below path: FilePath) -> NameClash? {
    struct Frame {
      let fd: CInt
      let name: String
      var subdirectories: [RawName]
    }
    var stack: [Frame] = []
    defer { for frame in stack { Syscalls.closeFile(frame.fd) } }
    func enter(_ fd: CInt, _ name: String) -> NameClash? {
      guard let entries = try? Syscalls.entries(ofDirectory: fd) else {
        Syscalls.closeFile(fd)
        return nil
      }
      stack.append(Frame(fd: fd, name: name, subdirectories: []))
      if let clash = clash(among: entries.lazy.map(\.name.string), in: "") {
        return clash.below(stack.dropFirst().map(\.name).joined(separator: "/"))
      }
      stack[stack.count - 1].subdirectories = entries.compactMap { entry in
        let isDirectory =
          entry.type == .directory
          || (entry.type == .unknown && (try? Syscalls.status(in: fd, entry.name))?.kind == .directory)
        return isDirectory ? entry.name : nil
      }
      return nil
    }
    guard let top = try? Syscalls.openFile(path, [.readOnly, .directory, .noFollow]) else { return nil }
    if let clash = enter(top, "") { return clash }
    while let last = stack.indices.last {
      guard let next = stack[last].subdirectories.popLast() else {
        Syscalls.closeFile(stack.removeLast().fd)
        continue
      }
      guard let fd = try? Syscalls.openDirectory(in: stack[last].fd, next) else { continue }
      if let clash = enter(fd, next.string) { return clash }
    }
    return nil
  }
}

extension NameClash {
  /// The clash with its paths put below the directory `directory` (`""`: unchanged).
  func below(_ directory: String) -> NameClash {
    guard !directory.isEmpty else { return self }
    var moved = self
    moved.path = directory + "/" + path
    moved.sibling = sibling.map { directory + "/" + $0 }
    return moved
  }
}
