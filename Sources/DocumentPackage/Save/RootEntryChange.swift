import SystemPackage

/// A save whose only change at the package root is one entry added or replaced: it is put in the
/// live root with one rename, so the save costs what that entry costs, not what the package holds.
///
/// **Why.** When the root's own entries change, the smallest changed subtree is the root, and a
/// new root must hold every unchanged subdirectory too. A directory cannot be in two places (no
/// hard links to directories), so a new root can only get them by relinking every file below
/// them (what ``TreeBuilder`` does: 100,000 `linkat` plus as many `unlinkat` for the old root in
/// a 1,000 × 100 package) or by moving them out of the live root. Moving them out before the
/// swap leaves the package at its path without them until the swap (a crash there leaves neither
/// state until recovery; an uncoordinated reader or another program's ``PackageMonitor`` sees
/// them removed), and moving them in after the swap does the same the other way round. So a save
/// that must stay the old or the new state at every instant, crash or not, pays O(files) for a
/// root it replaces.
///
/// It need not replace the root when one root entry changes: one `rename` into the live root —
/// `RENAME_NOREPLACE` for a new name, `RENAME_EXCHANGE` for a replaced one — moves the package
/// from the old state to the new one in one atomic step, exactly as the exchange of a changed
/// subdirectory does. Before it the package is the old state, after it the new one; the
/// leftover beside the package is the temporary tree, which ``Recovery`` removes. The root keeps
/// its inode, so its identity (``PackageIdentity``) needs no carrying, and the changed entry takes
/// a new inode, so a ``PackageMonitor`` marks the save as this process's own.
///
/// **Not for several entries.** Two renames in the live root are two steps: a crash, an
/// uncoordinated reader or a monitor between them sees a state that is neither old nor new, and
/// making that all-or-nothing needs a journal and recovery to roll it forward or back — the
/// package would be neither state at its path until then. A change of several root entries, a
/// removed or renamed root entry (a removal gives no new inode to mark the save as our own) and a
/// change of the root's own permissions or time therefore still build a new root.
///
/// The root is listed once to check that, apart from the changed entry, exactly the entries the
/// model keeps unchanged are there: anything else (an entry another program added or removed)
/// also falls back to building a new root, which leaves exactly the model's entries (and the FIFOs,
/// sockets and devices there, which the model does not hold: ``TreeBuilder`` carries them over).
struct RootEntryChange {
  /// The changed root entry, built at the temporary name and renamed in.
  let node: PackageNode
  /// Whether no entry of that name is in the root on disk (the rename must not replace one).
  let isNew: Bool

  /// The one changed entry of `root` (loaded from `target`, saved in place), or nil when the
  /// save must build a new root.
  /// - Complexity: O(*n*) for *n* loaded nodes, plus one listing of the root directory.
  init?(root: PackageNode, target: FilePath) {
    guard let origin = root.origin, origin.relativePath.isEmpty, origin.location.root == target,
      root.edits.isSubset(of: [.membership]), let children = root.loadedChildren
    else { return nil }
    var changed: PackageNode?
    var kept = Set<RawName>()
    for child in children.values {
      if Self.isUnchanged(child, in: origin.location) {
        kept.insert(child.diskName)
      } else {
        guard changed == nil else { return nil }
        changed = child
      }
    }
    guard let changed else { return nil }
    let name = changed.diskName
    guard let fd = try? Syscalls.openFile(target, [.readOnly, .directory, .noFollow]) else { return nil }
    defer { Syscalls.closeFile(fd) }
    guard let entries = try? Syscalls.entries(ofDirectory: fd) else { return nil }
    // FIFOs, sockets and devices are not the model's: the rename leaves them where they are.
    // An entry of the model taking the name of one of them replaces it in a new root.
    var onDisk = Set<RawName>()
    for (entry, type) in entries {
      var special = type == .other
      if type == .unknown {
        guard let status = try? Syscalls.status(in: fd, entry) else { return nil }
        special = status.kind == nil
      }
      if special {
        guard entry != name else { return nil }
        continue
      }
      onDisk.insert(entry)
    }
    let present = onDisk.remove(name) != nil
    guard onDisk == kept else { return nil }
    if present {
      // An exchange swaps any two kinds, but the fallback rename where exchange is refused does not.
      guard let status = try? Syscalls.status(in: fd, name), status.kind == changed.kind else { return nil }
    }
    node = changed
    isNew = !present
  }

  /// Whether `node` is on disk as the model has it: loaded from this package under its own name
  /// at the root, with nothing changed in or below it.
  private static func isUnchanged(_ node: PackageNode, in location: PackageLocation) -> Bool {
    guard let origin = node.origin, origin.location === location, origin.directory.isEmpty,
      origin.name?.string == node.name
    else { return false }
    return node.changeRoot == nil
  }
}
