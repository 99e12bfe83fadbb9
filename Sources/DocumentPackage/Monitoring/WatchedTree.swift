#if os(Linux)
import SystemPackage

/// The monitor's picture of a package: the status of every entry, one inotify watch per directory
/// (none when the monitor polls: see `WatchedTree+Polling`), and the work of turning a burst of
/// events into ``PackageChange``s. Used only by the monitor's thread.
final class WatchedTree {
  /// What the monitor remembers about an entry: enough to see that it changed (not `ctime`,
  /// which a save's hard links change for files whose contents did not).
  struct Signature: Equatable {
    var kind: NodeKind
    var inode: UInt64
    var size: Int64
    var modificationTime: FileTime
    var permissions: FilePermissions

    init?(_ status: FileStatus) {
      guard let kind = status.kind else { return nil }
      self.kind = kind
      inode = status.inode
      size = status.size
      modificationTime = status.modificationTime
      permissions = status.permissions
    }

    /// Whether `now` is what the monitor has as `self`, as far as a report goes: a directory is the
    /// same directory while its inode is (what is inside it is compared on its own, and
    /// ``MonitorRunner/differences(old:new:moves:)`` never reports a directory modified); anything
    /// else must have the same signature.
    func matches(_ now: Signature) -> Bool {
      kind == .directory && now.kind == .directory ? inode == now.inode : self == now
    }
  }

  /// The inotify instance (shared by the process's monitors), or nil when the monitor polls.
  let instance: WatchInstance?
  /// This tree's queue of inotify events; what the monitor's thread waits on (polling too: ``WatchInbox/wake()``
  /// ends the wait when the monitor stops).
  let inbox = WatchInbox()
  private(set) var packagePath: FilePath
  private(set) var rootInode: UInt64 = 0
  private(set) var device: UInt64 = 0
  /// The open root's ``RootIdentity`` (device, inode, birth time).
  private var rootIdentity = RootIdentity(device: 0, inode: 0, birth: nil)
  private(set) var rootDescriptor: CInt = -1
  private var parentWatch: CInt = -1
  /// Watches for `IN_MOVE_SELF` on the directories above the parent, up to `/`: a rename of any of them moves the
  /// package (as a rename of the parent or of the package itself does).
  private var ancestorWatches: Set<CInt> = []
  /// Every entry under the root, by path inside the package.
  private(set) var entries: [String: Signature] = [:]
  private var watchOfDirectory: [String: CInt] = [:]
  private var directoryOfWatch: [CInt: String] = [:]

  /// Watches the package at `packagePath` through `instance`, or the process's shared instance; with
  /// `polls`, sets up no watch at all (the monitor's thread calls ``poll()``).
  init(packagePath: FilePath, instance: WatchInstance? = nil, polls: Bool = false) throws(PackageError) {
    self.packagePath = packagePath
    do throws(Errno) {
      if polls {
        self.instance = nil
      } else if let instance {
        self.instance = instance
      } else {
        self.instance = try WatchInstance.shared()
      }
    } catch {
      if error == .tooManyOpenFiles {
        // EMFILE from inotify_init: the user's inotify instances (every program's) are all taken.
        throw PackageError(
          .limitExceeded, "cannot start watching, the system's limit of inotify instances is reached:",
          path: packagePath.string,
          context: "(a process's monitors and documents share one; raise fs.inotify.max_user_instances with sysctl)",
          errno: error)
      }
      throw PackageError.io(error, "cannot start watching", path: packagePath)
    }
    self.instance?.register(inbox)
    do {
      try watchParent()
      try openRoot()
      entries = try scan("")
      watchAncestors()
    } catch {
      close()
      throw error
    }
  }

  func close() {
    instance?.unregister(inbox)
    if rootDescriptor >= 0 { Syscalls.closeFile(rootDescriptor) }
    rootDescriptor = -1
  }

  /// The directories watched (with inotify) or listed at each poll.
  /// - Complexity: O(1) with inotify; O(entries) when polling.
  var watchCount: Int {
    instance == nil ? 1 + entries.values.count { $0.kind == .directory } : directoryOfWatch.count
  }

  /// Whether the monitor polls (no inotify watch).
  var polls: Bool { instance == nil }

  /// The directory (inside the package) a watch is on; nil for the parent's watch or a dropped one.
  func directory(of watch: CInt) -> String? { directoryOfWatch[watch] }
  func isParent(_ watch: CInt) -> Bool { watch == parentWatch }
  /// Whether `watch` is on a directory above the package's parent.
  func isAncestor(_ watch: CInt) -> Bool { ancestorWatches.contains(watch) }
  var rootWatch: CInt? { watchOfDirectory[""] }
  var packageName: String { packagePath.lastComponent?.string ?? "" }

  func dropped(_ watch: CInt) {
    if let directory = directoryOfWatch.removeValue(forKey: watch), watchOfDirectory[directory] == watch {
      watchOfDirectory[directory] = nil
    }
  }

  // MARK: Setting up

  /// Watches the package's parent: its entries, and its own moves.
  private func watchParent() throws(PackageError) {
    guard let instance else { return }  // polling: each poll looks at the package's path
    if parentWatch >= 0 { instance.removeWatch(parentWatch, for: inbox) }
    parentWatch = try addWatch(
      packagePath.removingLastComponent(), mask: WatchMask.entries | WatchMask.moveSelf, through: instance)
  }

  /// Watches every directory above the parent for its own moves, after the package's directories (which come first
  /// under the user's limit of watches). One that cannot be watched (not readable, or the limit reached) is left
  /// out: a rename of it is then seen only when something else makes the monitor look at the package's path.
  private func watchAncestors() {
    guard let instance else { return }
    for watch in ancestorWatches { instance.removeWatch(watch, for: inbox) }
    ancestorWatches = []
    var parent = packagePath.removingLastComponent()
    while !parent.isEmpty, parent != parent.removingLastComponent() {
      parent = parent.removingLastComponent()
      if let watch = try? instance.addWatch(parent, mask: WatchMask.moveSelf, for: inbox), watch != parentWatch {
        ancestorWatches.insert(watch)
      }
    }
  }

  private func openRoot() throws(PackageError) {
    if rootDescriptor >= 0 { Syscalls.closeFile(rootDescriptor) }
    rootDescriptor = -1
    let path = packagePath
    rootDescriptor = try Syscalls.io("cannot open package", path: path.string) { () throws(Errno) in
      try Syscalls.openFile(path, [.readOnly, .directory])
    }
    let status = try Syscalls.io("cannot look at", path: path.string) { () throws(Errno) in
      try Syscalls.status(of: rootDescriptor)
    }
    rootInode = status.inode
    device = status.device
    rootIdentity = RootIdentity.of(rootDescriptor) ?? RootIdentity(device: device, inode: rootInode, birth: nil)
  }

  private func addWatch(_ path: FilePath, mask: UInt32, through instance: WatchInstance) throws(PackageError) -> CInt {
    do { return try instance.addWatch(path, mask: mask, for: inbox) } catch {
      if error == .noSpace {
        throw PackageError(
          .limitExceeded, "cannot watch directory, the system's limit of inotify watches is reached:",
          path: path.string,
          context: "(\(watchCount) watched by this monitor; raise fs.inotify.max_user_watches with sysctl)",
          errno: error)
      }
      throw PackageError.io(error, "cannot watch directory", path: path)
    }
  }

  /// The path of the entry `relative` (inside the package) on disk. Made from one string: `FilePath.appending`
  /// inserts a path a character at a time, and in a debug build of swift-system each insertion checks the whole
  /// path again: each event would cost the square of its path's length.
  func absolute(_ relative: String) -> FilePath {
    relative.isEmpty ? packagePath : FilePath(packagePath.string + "/" + relative)
  }

  /// Watches the directory `relative` and everything under it, then lists them (watch first, so
  /// that nothing created meanwhile slips through: it is either listed or reported by the watch).
  /// When polling, only lists them.
  /// - Returns: the entries under `relative` (not itself), by path inside the package.
  func scan(_ relative: String) throws(PackageError) -> [String: Signature] {
    var found: [String: Signature] = [:]
    var pending = [relative]
    while let directory = pending.popLast() {
      let path = absolute(directory)
      if let instance {
        let watch: CInt
        do { watch = try addWatch(path, mask: WatchMask.contents, through: instance) } catch {
          // A path too long to name (a package thousands of directories deep) is refused rather than
          // left unwatched without a word.
          if error.code == .limitExceeded || error.errno == .fileNameTooLong { throw error }
          continue  // vanished or became a file meanwhile: its parent's events say so
        }
        watchOfDirectory[directory] = watch
        directoryOfWatch[watch] = directory
      }
      let listing: [DirectoryEntry]
      do { listing = try Syscalls.listDirectory(path).1 } catch {
        if error == .fileNameTooLong { throw PackageError.io(error, "cannot list directory", path: path) }
        continue
      }
      for entry in listing {
        guard let signature = Signature(entry.status) else { continue }
        let child = directory.isEmpty ? entry.name : directory + "/" + entry.name
        found[child] = signature
        if signature.kind == .directory { pending.append(child) }
      }
    }
    return found
  }

  // MARK: Applying a burst

  /// Brings the picture up to date for the names `dirty` (directory inside the package, name),
  /// shallowest first, and returns the old and new signatures of what differs, and the inodes that the touched
  /// names have now where they changed, by path (to recognise this process's saves and what they placed).
  func update(
    _ dirty: Set<DirtyName>
  ) throws(PackageError) -> (old: [String: Signature], new: [String: Signature], newInodes: [String: UInt64]) {
    var newInodes: [String: UInt64] = [:]
    var old: [String: Signature] = [:]
    var new: [String: Signature] = [:]
    var releasedWatches: [CInt: String] = [:]
    // Shallowest first: a directory replaced is rescanned before the names met inside it, which
    // then find the new state and have nothing more to say. The other way round, a name inside
    // (its directory replaced too) would be rescanned first, and the rescan of the directory
    // above would take that new state for the old one: what changed there would go unreported.
    func depth(_ path: String) -> Int { path.utf8.count { $0 == UInt8(ascii: "/") } }
    let relatives = dirty.map { $0.directory.isEmpty ? $0.name : $0.directory + "/" + $0.name }
    for relative in relatives.sorted(by: { (depth($0), $0) < (depth($1), $1) }) {
      guard !relative.isEmpty else { continue }
      let before = entries[relative]
      let after = (try? Syscalls.statusNoFollow(absolute(relative))).flatMap(Signature.init)
      if before == nil && after == nil { continue }
      let sameDirectory =
        before?.kind == .directory && after?.kind == .directory && before?.inode == after?.inode
      if sameDirectory { continue }  // its own watch reports what happens inside it
      if let before {
        // A name met earlier in this burst (under a directory replaced and rescanned) keeps the
        // state recorded then: `entries` holds the new state by now.
        if old[relative] == nil { old[relative] = before }
        entries[relative] = nil
        if before.kind == .directory { release(relative, into: &old, watches: &releasedWatches) }
      }
      if let after {
        if after.inode != before?.inode { newInodes[relative] = after.inode }
        new[relative] = after
        entries[relative] = after
        if after.kind == .directory {
          let below = try scan(relative)
          entries.merge(below) { $1 }
          new.merge(below) { $1 }
        }
      }
    }
    for (watch, directory) in releasedWatches where directoryOfWatch[watch] == directory {
      instance?.removeWatch(watch, for: inbox)
      directoryOfWatch[watch] = nil
    }
    return (old, new, newInodes)
  }

  /// Takes the entries under the directory `relative` out of the picture (into `old`) and
  /// forgets their watches, unless a new scan claims them again (same inode, same watch).
  private func release(_ relative: String, into old: inout [String: Signature], watches: inout [CInt: String]) {
    let prefix = relative + "/"
    for (path, signature) in entries where path.hasPrefix(prefix) {
      if old[path] == nil { old[path] = signature }  // as in `update`: the first state met is the old one
      entries[path] = nil
    }
    for (directory, watch) in watchOfDirectory where directory == relative || directory.hasPrefix(prefix) {
      watchOfDirectory[directory] = nil
      watches[watch] = directory
    }
  }

  /// Forgets everything and scans the package again (after an overflow or a replacement).
  func rescanAll() throws(PackageError) -> (old: [String: Signature], new: [String: Signature]) {
    let old = entries
    for watch in directoryOfWatch.keys { instance?.removeWatch(watch, for: inbox) }
    directoryOfWatch = [:]
    watchOfDirectory = [:]
    entries = try scan("")
    return (old, entries)
  }

  // MARK: The package itself

  enum RootState {
    case unchanged
    case replaced
    case moved(FilePath)
    case deleted
  }

  /// Where the package is now: still there, replaced by another directory, moved (found through
  /// the descriptor kept open on it), or gone.
  func checkRoot() -> RootState {
    if let now = RootIdentity.at(packagePath) {
      return now.isSame(as: rootIdentity) ? .unchanged : .replaced
    }
    let moved = MovedPackage.newPath(rootDescriptor: rootDescriptor, root: rootIdentity, from: packagePath)
    return moved.map { .moved($0) } ?? .deleted
  }

  /// Follows the package to `path` after it moved: its subtree's watches stay (they follow inodes).
  func follow(to path: FilePath) throws(PackageError) {
    packagePath = path
    try watchParent()
    watchAncestors()
  }

  /// Starts over on the directory that now has the package's name.
  func adoptReplacement() throws(PackageError) -> (old: [String: Signature], new: [String: Signature]) {
    try openRoot()
    return try rescanAll()
  }
}

/// A name in a watched directory that an event was about.
struct DirtyName: Hashable {
  var directory: String
  var name: String
}
#endif
