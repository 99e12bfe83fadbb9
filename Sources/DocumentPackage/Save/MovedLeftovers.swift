import SystemPackage

/// A save killed before it had a journal (or one that needed none), and the package renamed before
/// anything recovered it: the save's temporary tree and its lock file stay beside the old name,
/// where only a package of that name would ever recover them.
///
/// The lock file says whose they are: its holder writes the device and inode of the package's root
/// into it (``PackageLock``), and of the new root a whole save exchanges in, and a killed holder leaves
/// it behind. Recovery at the package's new name looks among its siblings for a lock file that names
/// this package's root while the lock's own name holds no package the lock file names (nothing, or a
/// folder made there since); it takes that name's lock without waiting (so no writer of that name is
/// at work), moves the temporary tree there under this package's temporary name (so recovery goes on
/// as after a kill at this name: the version store takes what it must, the rest is removed), removes
/// what the save left probing the file system, and drops the lock, which removes its file. Anything a
/// lock file does not prove this package's (an earlier release's empty lock file, a root that differs,
/// as after a whole-package swap, a name whose package the lock file names) is left alone.
///
/// Not covered: a folder made at the old name and opened there first. Its lock then records its own
/// root over the killed holder's, and its recovery takes the temporary tree for its own leftover.
enum MovedLeftovers {
  /// Under the package's lock, before recovery looks at its own temporary tree.
  /// - Returns: One line for each thing taken or removed, naming it.
  static func adopt(_ names: SiblingNames, parentFD: CInt) -> [RecoveryAction] {
    guard let root = try? Syscalls.status(in: parentFD, names.package), root.kind == .directory,
      let siblings = try? Syscalls.entries(ofDirectory: parentFD)
    else { return [] }
    let identity = [root.device, root.inode]
    var actions: [RecoveryAction] = []
    for (name, type) in siblings where type == .file || type == .unknown {
      guard name != names.lock, let owner = SiblingNames.owner(of: name, suffix: "lock") else { continue }
      let recorded = PackageLock.recordedRoots(lockFile: name, parentFD: parentFD)
      if recorded.isEmpty {
        if let removed = removeIfStale(name, owner: owner, names, parentFD) { actions.append(removed) }
        continue
      }
      guard recorded.contains(identity) else { continue }
      guard let component = owner.component, !holdsItsPackage(owner, recorded, parentFD),
        let ownerNames = try? SiblingNames(of: names.parent.appending(component)),
        let ownerLock = try? PackageLock(
          forPackageAt: names.parent.appending(component), wait: false, recordingRoot: false)
      else { continue }
      defer { withExtendedLifetime(ownerLock) {} }
      // Again under its lock: still no package of that name, and the lock still names this root.
      let again = PackageLock.recordedRoots(lockFile: name, parentFD: parentFD)
      guard !holdsItsPackage(owner, again, parentFD), again.contains(identity) else { continue }
      if (try? Syscalls.exists(in: parentFD, ownerNames.temporary)) == true,
        (try? Syscalls.exists(in: parentFD, names.temporary)) == false,
        (try? Syscalls.rename(from: parentFD, ownerNames.temporary, to: parentFD, names.temporary)) != nil
      {
        actions.append(
          RecoveryAction(
            description: "found the temporary tree of an interrupted save under the package's old name: took it from",
            path: ownerNames.path(ownerNames.temporary).string))
      }
      // What a save left trying the file system is nobody's (see `Recovery`).
      if (try? TreeRemoval.exists(ownerNames.probe, in: parentFD)) == true,
        (try? TreeRemoval.remove(ownerNames.probe, in: parentFD)) != nil
      {
        actions.append(
          RecoveryAction(
            description: "removed what an interrupted save left trying the file system under the package's old name:",
            path: ownerNames.path(ownerNames.probe).string))
      }
      actions.append(
        RecoveryAction(
          description: "removed the lock file an interrupted save left under the package's old name:",
          path: ownerNames.path(ownerNames.lock).string))
    }
    return actions
  }

  /// A lock file that names no root, beside no package of its name, that nobody holds: its holder was killed
  /// between making it and writing the root into it (nothing else was done yet), or was making that package
  /// (`--create`) and the package never came. It is removed as its holder's unlock would have (taking the lock
  /// without waiting, then dropping it), so that nothing is left beside a name a package was renamed from.
  private static func removeIfStale(
    _ lockFile: RawName, owner: RawName, _ names: SiblingNames, _ parentFD: CInt
  ) -> RecoveryAction? {
    guard (try? Syscalls.exists(in: parentFD, owner)) == false, let component = owner.component,
      let lock = try? PackageLock(forPackageAt: names.parent.appending(component), wait: false, recordingRoot: false)
    else { return nil }
    withExtendedLifetime(lock) {}
    return RecoveryAction(
      description: "removed a lock file an interrupted save left empty beside no package:",
      path: names.path(lockFile).string)
  }

  /// Whether the entry at the old name `owner` may be the package its lock file was taken for (that file naming
  /// the roots `recorded`): anything but a directory whose root the lock file does not name (nothing there, a file, or another folder made at the
  /// old name after the rename, which the leftovers are not of: outsider attack 3 on issue 35, F4, where such a
  /// folder kept them from the renamed package, and its own recovery then removed the state they held).
  private static func holdsItsPackage(_ owner: RawName, _ recorded: [[UInt64]], _ parentFD: CInt) -> Bool {
    guard let status = try? Syscalls.status(in: parentFD, owner) else {
      return (try? Syscalls.exists(in: parentFD, owner)) != false  // cannot tell: leave them
    }
    guard status.kind == .directory else { return false }
    return recorded.contains([status.device, status.inode])
  }
}
