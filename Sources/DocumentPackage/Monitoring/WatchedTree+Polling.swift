#if os(Linux)
import SystemPackage

// Polling: watching where inotify sees nothing.
//
// On a network file system or FUSE (sshfs's server side, an NFS server or its other clients, a
// FUSE daemon), files change without this kernel's knowing, and inotify reports nothing. There the
// monitor sets up no watch and its thread polls instead (`MonitorRunner`): every
// `PackageMonitor.Options.pollingInterval` after the last poll ended, `poll()` lists the package's
// directories and compares each listing with the picture (`WatchedTree.entries`). What differs
// becomes what inotify events would have said: the names to look at again (`DirtyName`) and the
// moves among them. From there a burst is compared and reported as in inotify mode
// (`MonitorRunner.report`, `WatchedTree.update`, `MonitorRunner.differences`): one mechanism
// decides what is reported, only the source of "something changed here" differs.
//
// One poll:
// 1. `lstat`s the package's path. Another inode, nothing, or not a directory is a change of the
//    package itself (the runner's root check says which: replaced, moved, deleted). Any other
//    error (a share that does not answer) skips the poll: the next one compares again.
// 2. Walks the directories the picture has, from the descriptor kept open on the package. Each is
//    opened relative to its parent's descriptor (no path is resolved from the root, so a package
//    10,000 levels deep costs what a wide one does; the package itself is opened anew through its
//    descriptor, as FUSE may not list a directory twice through one open description) and listed:
//    `getdents`, one `fstatat` per entry; no file is opened or read. A listed entry the picture does not have, or has with
//    another signature (a directory: another inode), is dirty; a directory the picture has with
//    the same inode is walked in turn. A directory whose inode changed is not walked: `update`
//    lists it whole, as it does for inotify. The walk keeps a stack, not recursion; a directory's
//    descriptor stays open only while subdirectories of it wait on the stack, and at most
//    `maximumOpenDirectories` do (past that, a subdirectory is opened by its path).
// 3. Finds the entries of the walked directories that were not listed (removed, or renamed
//    away): nothing to do when every entry of the picture was met, else one pass over the picture.
// 4. Pairs names gone and names arrived that have the same inode (one each) into moves: the two
//    halves of a rename, as inotify's cookies pair them.
// A directory that cannot be listed (gone meanwhile, unreadable, a share that does not answer) is
// left out of this poll: its parent's listing says what became of it, or the next poll looks again.
//
// What polling cannot see: an edit that keeps a file's inode, size and modification time (within
// the file system's resolution: sshfs gives whole seconds), which inotify mode would not report
// either (it compares the same signatures); changes that come and go between two polls. A rename
// on a file system that numbers entries anew when they move (sshfs) is a removal and an addition.
// And polling sees what the file system shows: sshfs keeps what it listed for 20 s unless mounted
// with `-o dir_cache=no` (or a shorter `dcache_timeout`); the kernel keeps a FUSE file's attributes
// up to a second, an NFS client for its `actimeo`.

extension WatchedTree {
  /// What one poll found, as inotify events would have said it.
  struct PollFindings {
    /// The names to look at again.
    var dirty: Set<DirtyName> = []
    /// Entries that left one name and are under another with the same inode (paths inside the
    /// package): renames.
    var moves: [(from: String, to: String)] = []
    /// The package's path is no longer the directory watched (replaced, moved or deleted).
    var rootChanged = false

    var isEmpty: Bool { dirty.isEmpty && !rootChanged }
  }

  /// The most directory descriptors a poll keeps open at once.
  static let maximumOpenDirectories = 64

  /// Lists the package's directories and says what differs from the picture (see the comment
  /// at the top of this file). Changes nothing: ``update(_:)`` does, with the names found.
  /// - Complexity: one listing per directory and one `fstatat` per entry of the package.
  func poll() -> PollFindings {
    var found = PollFindings()
    do {
      let status = try Syscalls.statusNoFollow(packagePath)
      guard status.kind == .directory, status.inode == rootInode, status.device == device else {
        found.rootChanged = true
        return found
      }
    } catch {
      if error == .noSuchFileOrDirectory || error == .notDirectory { found.rootChanged = true }
      return found
    }

    var walked: Set<String> = []
    var met: Set<String> = []
    var gone: [(path: String, signature: Signature)] = []
    var arrived: [(path: String, signature: Signature)] = []
    let budget = OpenBudget()
    var stack = [PollStep(relative: "", parentRelative: "", name: "", rawName: nil, parent: nil, inode: rootInode)]
    while let step = stack.popLast() {
      guard let fd = open(step) else { continue }
      var keep = false
      defer { if !keep { Syscalls.closeFile(fd) } }
      guard let listed = try? Syscalls.entryStatuses(ofDirectory: fd) else { continue }
      let (own, listing) = listed
      guard own.kind == .directory, own.inode == step.inode else {
        // Another directory took the name between the listing of its parent (or the look at the
        // package's path) and now.
        if step.rawName == nil {
          found.rootChanged = true
        } else {
          found.dirty.insert(DirtyName(directory: step.parentRelative, name: step.name))
        }
        continue
      }
      walked.insert(step.relative)
      var subdirectories: [(path: String, name: String, rawName: RawName, inode: UInt64)] = []
      for (rawName, status) in listing {
        guard let now = Signature(status) else { continue }
        let name = rawName.string  // as `scan` and inotify's events name it: invalid UTF-8 repaired
        let path = step.relative.isEmpty ? name : step.relative + "/" + name
        if let before = entries[path] {
          met.insert(path)
          if before.matches(now) {
            if now.kind == .directory { subdirectories.append((path, name, rawName, now.inode)) }
            continue
          }
          if before.inode != now.inode { gone.append((path, before)) }
        }
        if entries[path]?.inode != now.inode { arrived.append((path, now)) }
        found.dirty.insert(DirtyName(directory: step.relative, name: name))
      }
      guard !subdirectories.isEmpty else { continue }
      var parent: OpenDirectory?
      if budget.count < Self.maximumOpenDirectories {
        parent = OpenDirectory(fd: fd, budget: budget)
        keep = true
      }
      for (path, name, rawName, inode) in subdirectories {
        stack.append(
          PollStep(
            relative: path, parentRelative: step.relative, name: name, rawName: rawName, parent: parent, inode: inode))
      }
    }

    if met.count < entries.count {
      for (path, before) in entries where !met.contains(path) {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(path[..<$0]) } ?? ""
        guard walked.contains(directory) else { continue }  // under a directory not listed: its own name says why
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        found.dirty.insert(DirtyName(directory: directory, name: name))
        gone.append((path, before))
      }
    }
    found.moves = Self.moves(gone: gone, arrived: arrived)
    return found
  }

  /// Opens the directory of `step`: relative to its parent's descriptor when the walk kept it,
  /// else by its path; the package through the descriptor kept on it (a new descriptor for each
  /// poll: see ``Syscalls/entryStatuses(ofDirectory:)``). Nil if it cannot be opened (gone, no longer
  /// a directory, unreadable).
  private func open(_ step: PollStep) -> CInt? {
    guard let rawName = step.rawName else { return try? Syscalls.openDirectory(in: rootDescriptor, RawName(".")) }
    if let parent = step.parent { return try? Syscalls.openDirectory(in: parent.fd, rawName) }
    return try? Syscalls.openFile(absolute(step.relative), [.readOnly, .directory, .noFollow])
  }

  /// The names gone and arrived that are one entry moved: the same inode and kind, met once on
  /// each side (hard links to one file are not told apart).
  static func moves(
    gone: [(path: String, signature: Signature)], arrived: [(path: String, signature: Signature)]
  ) -> [(from: String, to: String)] {
    guard !gone.isEmpty && !arrived.isEmpty else { return [] }
    var goneByInode: [UInt64: Int] = [:]  // index in `gone`, or -1 when several
    for (index, entry) in gone.enumerated() {
      goneByInode[entry.signature.inode] = goneByInode[entry.signature.inode] == nil ? index : -1
    }
    var arrivals: [UInt64: Int] = [:]
    for entry in arrived { arrivals[entry.signature.inode, default: 0] += 1 }
    var moves: [(from: String, to: String)] = []
    for entry in arrived where arrivals[entry.signature.inode] == 1 {
      guard let index = goneByInode[entry.signature.inode], index >= 0 else { continue }
      let source = gone[index]
      guard source.signature.kind == entry.signature.kind, source.path != entry.path else { continue }
      moves.append((source.path, entry.path))
    }
    return moves
  }
}

/// A directory a poll is to list: its path inside the package, its parent's path and its own name
/// there (as the parent's listing gave them), the parent's descriptor if the walk kept it open,
/// and the inode the picture has for it. The package itself has no `rawName`.
private struct PollStep {
  var relative: String
  var parentRelative: String
  var name: String
  var rawName: RawName?
  var parent: OpenDirectory?
  var inode: UInt64
}

/// A directory a poll keeps open while subdirectories of it wait to be walked (each waiting step
/// holds it): closed when the last of them was opened.
private final class OpenDirectory {
  let fd: CInt
  private let budget: OpenBudget

  init(fd: CInt, budget: OpenBudget) {
    self.fd = fd
    self.budget = budget
    budget.count += 1
  }

  deinit {
    budget.count -= 1
    Syscalls.closeFile(fd)
  }
}

/// How many directories a poll keeps open.
private final class OpenBudget {
  var count = 0
}
#endif
