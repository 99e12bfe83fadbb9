#if os(Linux)
import SystemPackage

/// The monitor's picture of a package: the status of every entry, one inotify watch per directory
/// (none when the monitor polls: see `WatchedTree+Polling`), and the work of turning a burst of
/// events into ``PackageChange``s. Used only by the monitor's thread.
///
/// **Lazy listing** (`listsLazily`, a ``Document``'s monitor): every directory is watched, but only
/// the root's entries are looked at when the monitor starts. Below it, set-up finds the directories
/// alone (`getdents`; a directory whose link count is 2 has no subdirectory and is not read at all),
/// so it costs one watch and one `lstat` per directory, not one `lstat` per file: a package of
/// 1,000 folders of 1,000 files starts with 1,000 directories looked at, not 1,000,000 files. Such a
/// directory is `unlisted`: its files enter the picture one by one, when an event names them, with
/// what the events say about the state before the burst (a name first created in the burst, or the
/// new name of an entry renamed inside the package, was not there; any other first event means a file
/// was there, status unknown: see `Signature.unknown`). What follows from not having looked:
/// - a file there changed, removed or renamed is reported as in full listing; a file moved in from
///   outside the package is reported as modified whether or not the name was taken, and one renamed
///   over another inside it as renamed alone (the events do not say whether the name was taken);
/// - a directory replaced whose files were never listed (another program's save of that folder) is
///   reported as a whole, `modified DIR`, not file by file, and so is one moved in, `added DIR` (with
///   the directories under it); the files known under the old one are compared under the new one, and
///   what the burst's events say of other names in it is not reported again (they may be the old one's
///   files, removed after it was swapped out);
/// - a rescan (events lost, the package replaced) compares what is known: the root's entries, the
///   directories, the files met so far.
/// A directory made in a burst (created in it) is listed whole, as in full listing.
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

    private init(unknownOf kind: NodeKind) {
      self.kind = kind
      inode = 0
      size = -1
      modificationTime = FileTime(seconds: 0)
      permissions = []
    }

    /// A file that was there before a burst, in a directory the monitor never listed: what it was is
    /// not known (no entry has inode 0), so whatever is there now differs from it.
    static let unknown = Signature(unknownOf: .file)

    var isUnknown: Bool { inode == 0 && size == -1 }

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
  /// Every entry under the root, by path inside the package (with `listsLazily`: every directory,
  /// the root's entries and the files met so far).
  private(set) var entries: [String: Signature] = [:]
  /// Whether only the root's entries are listed when the monitor starts (see "Lazy listing" above).
  let listsLazily: Bool
  /// The directories (paths inside the package) whose files are not all in `entries`.
  private var unlisted: Set<String> = []
  private var watchOfDirectory: [String: CInt] = [:]
  private var directoryOfWatch: [CInt: String] = [:]

  /// Watches the package at `packagePath` through `instance`, or the process's shared instance; with
  /// `polls`, sets up no watch at all (the monitor's thread calls ``poll()``). With `lazily` (not when
  /// polling), lists only the root's entries (see "Lazy listing" above).
  init(
    packagePath: FilePath, instance: WatchInstance? = nil, polls: Bool = false, lazily: Bool = false
  ) throws(PackageError) {
    self.packagePath = packagePath
    listsLazily = lazily && !polls
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
      entries = try listsLazily ? scanLazily("", listsTop: true) : scan("")
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
      if let instance, try !watch(directory, through: instance) { continue }
      unlisted.remove(directory)
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

  /// Adds the watch of the directory `relative`. Returns false when it cannot be watched because it
  /// vanished or is no longer a directory (its parent's events say so).
  /// - Throws: at the watch limit, and for a path too long to name (a package thousands of
  ///   directories deep is refused rather than left unwatched without a word).
  private func watch(_ relative: String, through instance: WatchInstance) throws(PackageError) -> Bool {
    let watch: CInt
    do { watch = try addWatch(absolute(relative), mask: WatchMask.contents, through: instance) } catch {
      if error.code == .limitExceeded || error.errno == .fileNameTooLong { throw error }
      return false
    }
    watchOfDirectory[relative] = watch
    directoryOfWatch[watch] = relative
    return true
  }

  /// Watches the directory `relative` and every directory under it, and lists the entries of
  /// `relative` alone when `listsTop` (see "Lazy listing" above): below, only the directories are
  /// found, each watched before its link count and its names are read, so that nothing made meanwhile
  /// slips through. When polling, lists everything (``scan(_:)``).
  /// - Returns: the directories under `relative` and, with `listsTop`, every entry of `relative`.
  /// - Complexity: one watch and one `lstat` per directory, `getdents` of each directory that holds
  ///   directories (no `lstat` of a file), and one `fstatat` per entry of `relative` with `listsTop`.
  func scanLazily(_ relative: String, listsTop: Bool) throws(PackageError) -> [String: Signature] {
    guard let instance else { return try scan(relative) }
    var found: [String: Signature] = [:]
    guard try watch(relative, through: instance) else { return found }
    var pending = [relative]
    while let directory = pending.popLast() {
      let path = absolute(directory)
      var subdirectories: [(path: String, status: FileStatus)] = []
      let names: [RawName]
      do { names = try Syscalls.possibleSubdirectoryNames(at: path) } catch {
        if error == .fileNameTooLong { throw PackageError.io(error, "cannot list directory", path: path) }
        continue  // vanished meanwhile: its parent's events say so
      }
      var watched: [String] = []
      for name in names {
        let child = directory.isEmpty ? name.string : directory + "/" + name.string
        if try watch(child, through: instance) { watched.append(child) }
      }
      if listsTop && directory == relative {
        // The top's entries, each looked at after its directories were watched.
        let listing: [DirectoryEntry]
        do { listing = try Syscalls.listDirectory(path).1 } catch {
          if error == .fileNameTooLong { throw PackageError.io(error, "cannot list directory", path: path) }
          continue
        }
        unlisted.remove(directory)
        for entry in listing {
          guard let signature = Signature(entry.status) else { continue }
          let child = directory.isEmpty ? entry.name : directory + "/" + entry.name
          found[child] = signature
          guard signature.kind == .directory else { continue }
          // Made after the names were read: watched now, then looked at again.
          if watchOfDirectory[child] == nil {
            guard try watch(child, through: instance), let now = try? Syscalls.statusNoFollow(absolute(child)),
              let again = Signature(now), again.kind == .directory
            else { continue }
            found[child] = again
            subdirectories.append((child, now))
          } else {
            subdirectories.append((child, entry.status))
          }
        }
      } else {
        unlisted.insert(directory)
        for child in watched {
          guard let status = try? Syscalls.statusNoFollow(absolute(child)), let signature = Signature(status),
            signature.kind == .directory
          else { continue }
          found[child] = signature
          subdirectories.append((child, status))
        }
      }
      for (child, status) in subdirectories {
        // A directory's link count is 2 and one per subdirectory where the file system counts them
        // (1 where it does not): at 2 there is nothing under it to watch.
        if status.linkCount == 2 {
          unlisted.insert(child)
        } else {
          pending.append(child)
        }
      }
    }
    return found
  }

  // MARK: Applying a burst

  /// Brings the picture up to date for the names `dirty` (directory inside the package, name),
  /// shallowest first, and returns the old and new signatures of what differs, the inodes that the touched
  /// names have now where they changed, by path (to recognise this process's saves and what they placed),
  /// and the directories replaced whose files were never listed (reported as a whole: see "Lazy listing").
  /// `events` says what the burst's events were for each name, and `moves` are its paired renames (from,
  /// to): what a lazy picture knows of the files it never listed.
  func update(
    _ dirty: Set<DirtyName>, events: [DirtyName: NameEvents] = [:], moves: [(String, String)] = []
  ) throws(PackageError) -> (
    old: [String: Signature], new: [String: Signature], newInodes: [String: UInt64], replacedUnlisted: [String]
  ) {
    var newInodes: [String: UInt64] = [:]
    var old: [String: Signature] = [:]
    var new: [String: Signature] = [:]
    var releasedWatches: [CInt: String] = [:]
    var replacedUnlisted: [String] = []
    var movedIn: [String] = []  // directories that came with their files unlisted
    // Shallowest first: a directory replaced is rescanned before the names met inside it, which
    // then find the new state and have nothing more to say. The other way round, a name inside
    // (its directory replaced too) would be rescanned first, and the rescan of the directory
    // above would take that new state for the old one: what changed there would go unreported.
    func depth(_ path: String) -> Int { path.utf8.count { $0 == UInt8(ascii: "/") } }
    let named = dirty.map { ($0.directory.isEmpty ? $0.name : $0.directory + "/" + $0.name, $0) }
    let moveTargets = Set(moves.map(\.1))
    func wholeInThisBurst(_ directory: String) -> Bool {
      func isUnder(_ top: String) -> Bool { directory == top || directory.hasPrefix(top + "/") }
      return replacedUnlisted.contains(where: isUnder) || movedIn.contains(where: isUnder)
    }
    for (relative, name) in named.sorted(by: { (depth($0.0), $0.0) < (depth($1.0), $1.0) }) {
      guard !relative.isEmpty else { continue }
      var before = entries[relative]
      if before == nil, wholeInThisBurst(name.directory) {
        // Under a directory this burst replaced or moved in unlisted: reported as a whole, and the files known
        // under the old one compared already. The name's events may be the old directory's (its files removed
        // after it was swapped out), and say nothing of what is there now.
        continue
      }
      let said = events[name] ?? NameEvents(first: 0)
      if before == nil, unlisted.contains(name.directory),
        said.first & (WatchMask.create | WatchMask.isDirectory) == 0, !moveTargets.contains(relative)
      {
        // A file the monitor never looked at: there before the burst (every directory of the
        // picture is known; not created in the burst, nor the name an entry of the package was
        // renamed to, which is taken for a new name).
        before = .unknown
      }
      let after = (try? Syscalls.statusNoFollow(absolute(relative))).flatMap(Signature.init)
      if before == nil && after == nil { continue }
      let sameDirectory =
        before?.kind == .directory && after?.kind == .directory && before?.inode == after?.inode
      if sameDirectory { continue }  // its own watch reports what happens inside it
      var filesWereListed = true
      if let before {
        // A name met earlier in this burst (under a directory replaced and rescanned) keeps the
        // state recorded then: `entries` holds the new state by now.
        if old[relative] == nil { old[relative] = before }
        entries[relative] = nil
        if before.kind == .directory {
          filesWereListed = !unlisted.contains(relative)
          release(relative, into: &old, watches: &releasedWatches)
        }
      }
      if let after {
        if after.inode != before?.inode { newInodes[relative] = after.inode }
        new[relative] = after
        entries[relative] = after
        if after.kind == .directory {
          // A directory made in the burst is listed whole, as is one replacing a listed directory;
          // one moved in, or replacing a directory never listed, is watched with its files unlisted.
          let made = said.all & WatchMask.create != 0
          let lazily = listsLazily && !made && !(before?.kind == .directory && filesWereListed)
          let below = lazily ? try scanLazily(relative, listsTop: false) : try scan(relative)
          entries.merge(below) { $1 }
          new.merge(below) { $1 }
          if lazily && before?.kind == .directory {
            replacedUnlisted.append(relative)
            lookAgain(knownIn: relative, at: relative, old: old, new: &new)
          } else if lazily {
            movedIn.append(relative)
          }
        }
      }
    }
    // A directory moved from another name of the package: the files known under that name, under this one.
    for top in movedIn {
      if let source = moves.first(where: { $0.1 == top })?.0 {
        lookAgain(knownIn: source, at: top, old: old, new: &new)
      }
    }
    for (watch, directory) in releasedWatches where directoryOfWatch[watch] == directory {
      instance?.removeWatch(watch, for: inbox)
      directoryOfWatch[watch] = nil
    }
    return (old, new, newInodes, replacedUnlisted)
  }

  /// Looks again, under the directory `top` just scanned lazily, at the files the picture knew under
  /// `source` (the same directory before it was replaced, or before it moved), to compare them.
  private func lookAgain(
    knownIn source: String, at top: String, old: [String: Signature], new: inout [String: Signature]
  ) {
    let sourcePrefix = source + "/"
    for (path, signature) in old where path.hasPrefix(sourcePrefix) && signature.kind != .directory {
      let now = top + "/" + path.dropFirst(sourcePrefix.count)
      guard entries[now] == nil, !signature.isUnknown,
        let status = (try? Syscalls.statusNoFollow(absolute(now))).flatMap(Signature.init)
      else { continue }
      entries[now] = status
      new[now] = status
    }
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
    if !unlisted.isEmpty {
      for directory in unlisted where directory == relative || directory.hasPrefix(prefix) {
        unlisted.remove(directory)
      }
    }
  }

  /// Forgets everything and scans the package again (after an overflow or a replacement). A lazy
  /// picture lists the root again and looks again at the files it knew below it.
  func rescanAll() throws(PackageError) -> (old: [String: Signature], new: [String: Signature]) {
    let old = entries
    for watch in directoryOfWatch.keys { instance?.removeWatch(watch, for: inbox) }
    directoryOfWatch = [:]
    watchOfDirectory = [:]
    unlisted = []
    guard listsLazily else {
      entries = try scan("")
      return (old, entries)
    }
    entries = try scanLazily("", listsTop: true)
    for (path, signature) in old where signature.kind != .directory && entries[path] == nil {
      guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), unlisted.contains(String(path[..<slash])),
        let now = (try? Syscalls.statusNoFollow(absolute(path))).flatMap(Signature.init)
      else { continue }
      entries[path] = now
    }
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

/// What the events of a burst said about one name: the mask of the first, and all their masks together.
struct NameEvents {
  var first: UInt32
  var all: UInt32 = 0
}
#endif
