import SystemPackage

/// The monitor's thread: waits for inotify events (or polls the package at its interval), groups
/// them into bursts and reports each burst's changes (see ``PackageMonitor`` for the mechanism).
final class MonitorRunner: @unchecked Sendable {
  private let lock = SystemLock()
  private var stopped = false
  private var watches = 0
  #if os(Linux)
  private let tree: WatchedTree
  private let options: PackageMonitor.Options
  private let continuation: AsyncThrowingStream<PackageMonitor.Event, any Error>.Continuation
  /// The placements (`OwnSaves` serial numbers) this monitor already took for its process's saves
  /// (the last 256): each save's entry is new once. The same number new again with no new placement
  /// is another entry that was given it after the save's was freed (replaced by a later save, its
  /// version settled) — another program's, say — and must not be taken for a save; a later save
  /// given the number again placed it anew, and is one.
  private var claimedPlacements: [UInt64] = []
  /// Placements made before the monitor started are not saves it saw: a number one of them had,
  /// new again later, is another entry.
  private let firstPlacement = OwnSaves.shared.nextPlacementSerial
  /// Removals alone, held back for what comes next (``PackageMonitor/Options/removalsWait``),
  /// and when the last event came since they were held.
  private var heldRemovals: PackageMonitor.Event?
  private var lastEventSinceHeld = ContinuousClock.now

  init(
    tree: WatchedTree, options: PackageMonitor.Options,
    continuation: AsyncThrowingStream<PackageMonitor.Event, any Error>.Continuation
  ) {
    self.tree = tree
    self.options = options
    self.continuation = continuation
    self.watches = tree.watchCount
  }
  #endif

  var watchCount: Int { lock.withLock { watches } }

  func stop() {
    lock.withLock { stopped = true }
    #if os(Linux)
    tree.inbox.wake()
    #endif
  }
  private var isStopped: Bool { lock.withLock { stopped } }

  #if os(Linux)
  /// The burst being collected.
  private struct Burst {
    var start: ContinuousClock.Instant?
    var last: ContinuousClock.Instant?
    var dirty: Set<DirtyName> = []
    /// What the events said of each name (what a lazy picture knows of a file it never listed).
    var nameEvents: [DirtyName: NameEvents] = [:]
    var movedFrom: [UInt32: String] = [:]
    var movedTo: [UInt32: String] = [:]
    var rootChanged = false
    var overflowed = false
  }

  func run() {
    var burst = Burst()
    defer {
      tree.close()
      continuation.finish()
    }
    // Polling: the next poll starts an interval after the last one ended, so that a package that
    // takes long to list is not listed without pause.
    var nextPoll = tree.polls ? ContinuousClock.now + options.pollingInterval : nil
    while !isStopped {
      let now = ContinuousClock.now
      var wait = Duration.milliseconds(100)
      if let due = due(burst) { wait = max(.zero, min(wait, due - now)) }
      if let due = heldRemovalsDue(burst) { wait = max(.zero, min(wait, due - now)) }
      if let nextPoll { wait = max(.zero, min(wait, nextPoll - now)) }
      do {
        for event in try tree.inbox.take(waiting: wait) { take(event, into: &burst) }
      } catch {
        continuation.finish(throwing: PackageError.io(error, "cannot read changes of", path: tree.packagePath))
        return
      }
      if let next = nextPoll, ContinuousClock.now >= next, !isStopped {
        take(tree.poll(), into: &burst)
        nextPoll = ContinuousClock.now + options.pollingInterval
      }
      if let due = due(burst), ContinuousClock.now >= due {
        do {
          if try !report(burst) { return }
        } catch {
          continuation.finish(throwing: error)
          return
        }
        burst = Burst()
      }
      if let due = heldRemovalsDue(burst), ContinuousClock.now >= due { releaseHeldRemovals(into: &burst) }
    }
  }

  /// When the held removals are reported alone: no burst under way, and none for
  /// ``PackageMonitor/Options/removalsWait`` (plus an interval when polling: the next poll must
  /// have looked).
  private func heldRemovalsDue(_ burst: Burst) -> ContinuousClock.Instant? {
    guard heldRemovals != nil, burst.start == nil, let wait = options.removalsWait else { return nil }
    return lastEventSinceHeld + wait + (tree.polls ? options.pollingInterval : .zero)
  }

  /// Reports the held removals, if the package is still the directory it was; otherwise the
  /// package's own change is looked at first, as a burst of its own that the removals join.
  private func releaseHeldRemovals(into burst: inout Burst) {
    guard case .unchanged = tree.checkRoot() else {
      burst.start = ContinuousClock.now
      burst.last = burst.start
      burst.rootChanged = true
      return
    }
    if let held = heldRemovals { continuation.yield(held) }
    heldRemovals = nil
  }

  /// When the burst should be reported: quiet for `delay` (plus `delay` more while a move is
  /// unpaired), or `maximumDelay` after it began.
  private func due(_ burst: Burst) -> ContinuousClock.Instant? {
    guard let start = burst.start, let last = burst.last else { return nil }
    let unpaired = burst.movedFrom.keys.contains { burst.movedTo[$0] == nil }
    let quiet = last + (unpaired ? options.delay * 2 : options.delay)
    return min(quiet, start + options.maximumDelay)
  }

  private func take(_ event: WatchEvent, into burst: inout Burst) {
    let now = ContinuousClock.now
    if burst.start == nil { burst.start = now }
    burst.last = now
    if event.has(WatchMask.overflow) {
      burst.overflowed = true
      return
    }
    if tree.isParent(event.watch) || tree.isAncestor(event.watch) {
      // The package's name in its parent, or a move of a directory on the way to it.
      if event.has(WatchMask.moveSelf) || (tree.isParent(event.watch) && event.name == tree.packageName) {
        burst.rootChanged = true
      }
      return
    }
    if event.has(WatchMask.ignored) {
      if tree.rootWatch == event.watch { burst.rootChanged = true }
      tree.dropped(event.watch)
      return
    }
    guard let directory = tree.directory(of: event.watch) else { return }
    if event.has(WatchMask.moveSelf | WatchMask.deleteSelf) {
      if directory.isEmpty { burst.rootChanged = true }
      return
    }
    guard !event.name.isEmpty else { return }
    let name = DirtyName(directory: directory, name: event.name)
    burst.dirty.insert(name)
    burst.nameEvents[name, default: NameEvents(first: event.mask)].all |= event.mask
    let relative = directory.isEmpty ? event.name : directory + "/" + event.name
    if event.has(WatchMask.movedFrom) { burst.movedFrom[event.cookie] = relative }
    if event.has(WatchMask.movedTo) { burst.movedTo[event.cookie] = relative }
  }

  /// Adds what a poll found to the burst, as the inotify events saying it would be.
  private func take(_ found: WatchedTree.PollFindings, into burst: inout Burst) {
    guard !found.isEmpty else { return }
    let now = ContinuousClock.now
    if burst.start == nil { burst.start = now }
    burst.last = now
    if found.rootChanged { burst.rootChanged = true }
    burst.dirty.formUnion(found.dirty)
    for move in found.moves {
      // No inotify cookie comes while polling: numbering the moves of the burst keeps them apart.
      let cookie = UInt32(truncatingIfNeeded: burst.movedFrom.count)
      burst.movedFrom[cookie] = move.from
      burst.movedTo[cookie] = move.to
    }
  }

  /// Compares and reports one burst. Returns false when the sequence is over (package deleted).
  private func report(_ burst: Burst) throws -> Bool {
    options.beforeComparing?()
    if heldRemovals != nil, let last = burst.last { lastEventSinceHeld = max(lastEventSinceHeld, last) }
    var changes: [PackageMonitor.Change] = []
    var old: [String: WatchedTree.Signature] = [:]
    var new: [String: WatchedTree.Signature] = [:]
    var moves: [(String, String)] = []
    var compared = false
    var newInodes: [String: UInt64] = [:]  // by path in the package; "" for the root
    var replacedUnlisted: [String] = []
    if burst.rootChanged || burst.overflowed {  // lost events may have been the root's own
      switch tree.checkRoot() {
      case .unchanged: break
      case .replaced:
        (old, new) = try tree.adoptReplacement()
        newInodes[""] = tree.rootInode
        changes.append(PackageMonitor.Change(.packageReplaced, tree.packagePath.string))
        compared = true
      case .moved(let path):
        try tree.follow(to: path)
        changes.append(PackageMonitor.Change(.packageMoved, path.string))
      case .deleted:
        continuation.yield(
          PackageMonitor.Event(
            changes: [PackageMonitor.Change(.packageDeleted, tree.packagePath.string)]
              + (heldRemovals?.changes ?? []),
            isOwnSave: false, packagePath: tree.packagePath.string))
        return false
      }
    }
    if !compared && burst.overflowed {
      (old, new) = try tree.rescanAll()
      changes.append(PackageMonitor.Change(.rescanned, tree.packagePath.string))
    } else if !compared {
      for (cookie, from) in burst.movedFrom { if let to = burst.movedTo[cookie] { moves.append((from, to)) } }
      (old, new, newInodes, replacedUnlisted) = try tree.update(burst.dirty, events: burst.nameEvents, moves: moves)
    }
    let comparedAt = Syscalls.realTimeNow()  // the burst's new directories are watched from here on
    lock.withLock { watches = tree.watchCount }
    changes += Self.differences(old: old, new: new, moves: moves, replacedUnlisted: replacedUnlisted)
    guard !changes.isEmpty else { return true }
    let folder = newInodes.isEmpty ? nil : OwnSaves.folderInode(of: tree.packagePath)
    var placements: [String: OwnSaves.Placement] = [:]
    if let folder {
      for (path, inode) in newInodes {
        guard
          let placement = OwnSaves.shared.placement(
            device: tree.device, inode: inode, folder: folder, package: tree.packageName, owner: options.owner,
            at: path.isEmpty ? tree.packagePath : FilePath(tree.packagePath.string + "/" + path)),
          placement.serial >= firstPlacement, !claimedPlacements.contains(placement.serial)
        else { continue }
        placements[path] = placement
      }
    }
    let ownPlaced = Set(placements.keys)
    claimedPlacements = (claimedPlacements + placements.values.map(\.serial)).suffix(256)
    let own = !ownPlaced.isEmpty
    if own && !options.reportsOwnSaves { return true }
    var event = PackageMonitor.Event(changes: changes, isOwnSave: own, packagePath: tree.packagePath.string)
    event.ownPlaced = ownPlaced
    event.comparedAt = comparedAt
    // A save that carried directories its model never listed says what it put in them (the older first).
    for placement in placements.values.sorted(by: { $0.serial < $1.serial }) {
      if let carried = placement.carried { event.carried = event.carried.merging(carried) }
    }
    for change in changes where !change.path.hasPrefix("/") {  // entries; package-level paths are absolute
      event.seen[change.path] = .some(new[change.path].map(Self.seen))
      if let from = change.oldPath { event.seen[from] = .some(nil) }
    }
    if let held = heldRemovals {  // package-level changes stay first
      let packageLevel = event.changes.filter { $0.path.hasPrefix("/") }
      event = held.followed(by: event)
      event.changes = packageLevel + held.changes + changes.filter { !$0.path.hasPrefix("/") }
      heldRemovals = nil
    }
    if options.removalsWait != nil, !event.isOwnSave, event.changes.allSatisfy({ $0.kind == .removed }) {
      heldRemovals = event
      lastEventSinceHeld = burst.last ?? ContinuousClock.now
      return true
    }
    continuation.yield(event)
    return true
  }

  private static func seen(_ signature: WatchedTree.Signature) -> PackageMonitor.SeenEntry {
    PackageMonitor.SeenEntry(
      kind: signature.kind, inode: signature.inode, size: signature.size,
      modificationTime: signature.modificationTime, permissions: signature.permissions)
  }

  /// The changes between what was (`old`) and what is (`new`) at the paths a burst touched;
  /// `moves` are the paired halves of renames (from, to); `replacedUnlisted` the directories replaced
  /// whose files were never listed (see `WatchedTree`, "Lazy listing"), reported modified as a whole.
  static func differences(
    old: [String: WatchedTree.Signature], new: [String: WatchedTree.Signature], moves: [(String, String)],
    replacedUnlisted: [String] = []
  ) -> [PackageMonitor.Change] {
    var old = old
    var new = new
    var changes = replacedUnlisted.map { PackageMonitor.Change(.modified, $0) }
    for (from, to) in moves {
      // A file never listed has no inode to compare: the events' cookie pairs the two halves.
      guard let before = old[from], let after = new[to], before.isUnknown || before.inode == after.inode else {
        continue
      }
      changes.append(PackageMonitor.Change(.renamed, to, oldPath: from))
      old[from] = nil
      new[to] = nil
      guard before.kind == .directory else { continue }
      let prefix = from + "/"
      for (path, signature) in old where path.hasPrefix(prefix) {
        let moved = to + "/" + path.dropFirst(prefix.count)
        old[path] = nil
        if let now = new.removeValue(forKey: moved) {
          if now != signature && !(now.kind == .directory && signature.kind == .directory) {
            changes.append(PackageMonitor.Change(.modified, moved))
          }
        } else {
          changes.append(PackageMonitor.Change(.removed, moved))
        }
      }
      let newPrefix = to + "/"
      for path in new.keys where path.hasPrefix(newPrefix) {
        new[path] = nil
        changes.append(PackageMonitor.Change(.added, path))
      }
    }
    for (path, before) in old {
      if let after = new.removeValue(forKey: path) {
        if after != before && !(after.kind == .directory && before.kind == .directory) {
          changes.append(PackageMonitor.Change(.modified, path))
        }
      } else {
        changes.append(PackageMonitor.Change(.removed, path))
      }
    }
    for path in new.keys { changes.append(PackageMonitor.Change(.added, path)) }
    return changes.sorted { ($0.path, $0.kind.rawValue) < ($1.path, $1.kind.rawValue) }
  }
  #endif
}
