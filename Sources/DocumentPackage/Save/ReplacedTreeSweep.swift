import SystemPackage

/// After an in-place save's swap: takes back into the package what another program made in the
/// folders the save rebuilt, after the save listed them (read this first).
///
/// A save builds each folder it changes anew, from a listing — the model's, or the builder's own
/// for a folder it carries from disk (``TreeBuilder/listedDirectories``) — and swaps the new tree in
/// (see ``Saver``). A program that does not take the package lock (a shell's `echo > P.mydoc/x`, an
/// editor, `cp`) may add an entry to such a folder after that listing. The checks for outside
/// changes (before the save, and again just before its commit point: ``Saver/beforeCommit``) refuse,
/// or merge again, when they see it; an entry made after the last check and before the swap ends
/// up in the replaced tree, which the save removes or hands to the version store. So, after the
/// swap is durable and before the replaced tree is disposed of, each rebuilt folder's old copy is
/// listed, and every entry there that the save neither saw (no node of the model was loaded from
/// it, and the builder's listing did not hold it) nor put in the new tree is renamed into the new
/// folder (`RENAME_NOREPLACE`), whole. Where the save gave its name to another entry, it is kept
/// beside it as `NAME (outside change).EXT` (`… 2`, `… 3`, …): both are kept, as a merge keeps both
/// sides of a conflict.
///
/// Not swept: a folder the save removed, or moved out of the subtree it rebuilt; an entry made in
/// it meanwhile goes with it (into the version kept of the previous state, when one is kept).
///
/// **Crash.** Each rename is atomic, and the folders are flushed before the replaced tree is
/// disposed of. A kill during the sweep leaves the package whole: the new state plus what was swept
/// so far; what was not is left in the replaced tree, which recovery hands to the version store (a
/// deferred version) or removes, as for any save killed after its swap.
///
/// **Failure after the sweep.** When the save then has to swap back (the keeper cannot take the
/// replaced tree), ``undo()`` first renames the swept entries back to where they were found.
struct ReplacedTreeSweep {
  /// One entry taken into the package.
  struct Move {
    let from: FilePath  // the folder in the replaced tree, relative to its top
    let name: RawName
    let into: String  // the folder in the package (its path as built)
    let newName: RawName
  }

  let package: FilePath
  /// Where the replaced tree is (the save's temporary name, after the swap).
  let replaced: FilePath
  /// The path in the package of the entry the swap replaced ("" for the whole package).
  let changedPath: FilePath
  private(set) var moves: [Move] = []
  /// The model's directories that gained entries (their listings no longer hold everything).
  private(set) var gained: [PackageNode] = []

  init(package: FilePath, replaced: FilePath, changedPath: String) {
    self.package = package
    self.replaced = replaced
    self.changedPath = FilePath(changedPath)
  }

  /// The paths in the package of the entries taken in, under the names they got.
  var sweptPaths: [String] {
    moves.map { $0.into.isEmpty ? $0.newName.string : $0.into + "/" + $0.newName.string }
      .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// Sweeps the folders `directories` (built by the save of `model`).
  /// - Complexity: One listing per rebuilt folder in the replaced tree, plus O(*n*) for the *n*
  ///   loaded nodes when a folder was built from the model's listing.
  mutating func run(_ directories: [TreeBuilder.ListedDirectory], model: PackageNode) {
    let plan = directories.compactMap { directory in oldPath(of: directory.origin).map { (directory, $0) } }
    guard !plan.isEmpty else { return }
    let seen = Self.loadedNames(in: model, below: Set(plan.compactMap { $0.0.listed == nil ? $0.0.origin : nil }))
    for (directory, old) in plan {
      sweep(directory, old: old, known: (directory.listed ?? seen[directory.origin] ?? []).union(directory.special))
    }
  }

  /// The path in the replaced tree of the package folder `origin`; nil when outside it.
  private func oldPath(of origin: FilePath) -> FilePath? {
    if changedPath.isEmpty { return origin }
    guard origin.starts(with: changedPath) else { return nil }
    return FilePath(root: nil, origin.components.dropFirst(changedPath.components.count))
  }

  /// The names each folder of `folders` had when the model listed it: those its nodes were loaded
  /// from, in the tree, moved elsewhere in it, or removed from it since (``PackageLocation/detachedNodes``).
  private static func loadedNames(in model: PackageNode, below folders: Set<FilePath>) -> [FilePath: Set<RawName>] {
    guard !folders.isEmpty, let location = model.origin?.location else { return [:] }
    var names: [FilePath: Set<RawName>] = [:]
    var pending = [model] + location.detachedNodes  // an explicit stack: the depth is the package's
    while let node = pending.popLast() {
      if let origin = node.origin, origin.location === location, let name = origin.name,
        folders.contains(origin.directory)
      {
        names[origin.directory, default: []].insert(RawName(name))
      }
      node.appendLoadedChildren(to: &pending)
    }
    return names
  }

  private mutating func sweep(_ directory: TreeBuilder.ListedDirectory, old: FilePath, known: Set<RawName>) {
    guard let oldFD = try? Syscalls.openBeneath(replaced, old, [.readOnly, .directory]) else { return }
    defer { Syscalls.closeFile(oldFD) }
    guard let entries = try? Syscalls.entries(ofDirectory: oldFD) else { return }
    let strays = entries.filter { !known.contains($0.name) }
    guard !strays.isEmpty,
      let newFD = try? Syscalls.openBeneath(package, FilePath(directory.path), [.readOnly, .directory])
    else { return }
    defer { Syscalls.closeFile(newFD) }
    let before = moves.count
    for stray in strays {
      guard let newName = Self.moveIn(stray.name, from: oldFD, to: newFD) else { continue }
      moves.append(Move(from: old, name: stray.name, into: directory.path, newName: newName))
    }
    guard moves.count > before else { return }
    try? Syscalls.synchronize(newFD)
    try? Syscalls.synchronize(oldFD)
    if let node = directory.node { gained.append(node) }
  }

  /// Renames `name` from `oldFD` into `newFD`, under a free name if its own is taken there.
  /// - Returns: The name it got; nil if it could not be moved (it stays in the replaced tree), or is
  ///   in the new folder already (the save linked it there: a FIFO it carried).
  private static func moveIn(_ name: RawName, from oldFD: CInt, to newFD: CInt) -> RawName? {
    for attempt in 0..<100 {
      let newName = attempt == 0 ? name : keptName(name, attempt)
      do {
        try Syscalls.rename(from: oldFD, name, to: newFD, newName, flags: Syscalls.renameNoReplace)
        return newName
      } catch  where error == .fileExists {
        // The save's own link of it (an entry the save carried without listing it as the model's)?
        if attempt == 0, let mine = try? Syscalls.status(in: newFD, newName),
          let theirs = try? Syscalls.status(in: oldFD, name), mine.device == theirs.device, mine.inode == theirs.inode
        {
          return nil
        }
        continue
      } catch  where error.refusesExchange {
        // No RENAME_NOREPLACE here: the name is checked free first (the package's own saves hold the lock).
        guard (try? Syscalls.exists(in: newFD, newName)) == false else { continue }
        return (try? Syscalls.rename(from: oldFD, name, to: newFD, newName)) != nil ? newName : nil
      } catch {
        return nil
      }
    }
    return nil
  }

  /// `NAME (outside change).EXT`, `NAME (outside change 2).EXT`, … for attempt 1, 2, …
  static func keptName(_ name: RawName, _ attempt: Int) -> RawName {
    let bytes = name.bytes.dropLast().map { UInt8(bitPattern: $0) }
    let suffix = Array((attempt == 1 ? " (outside change)" : " (outside change \(attempt))").utf8)
    guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 else {
      return RawName(bytes: ArraySlice(bytes + suffix))
    }
    return RawName(bytes: ArraySlice(bytes[..<dot] + suffix + bytes[dot...]))
  }

  /// Puts the swept entries back where they were found in the replaced tree (before a swap back).
  func undo() {
    for move in moves.reversed() {
      let into = FilePath(move.into)
      guard let newFD = try? Syscalls.openBeneath(package, into, [.readOnly, .directory]) else { continue }
      defer { Syscalls.closeFile(newFD) }
      guard let oldFD = try? Syscalls.openBeneath(replaced, move.from, [.readOnly, .directory]) else { continue }
      defer { Syscalls.closeFile(oldFD) }
      try? Syscalls.rename(from: newFD, move.newName, to: oldFD, move.name, flags: Syscalls.renameNoReplace)
    }
  }
}
