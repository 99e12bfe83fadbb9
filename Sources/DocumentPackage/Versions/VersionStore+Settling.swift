import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// `pending/`: versions saves recorded without copying them yet (see ``DeferredKeeping``).
  var pendingPath: FilePath { path.appending("pending") }

  /// The ids of the pending versions, oldest first.
  var pendingIDs: [Int] {
    ((try? StoreFiles.names(in: pendingPath)) ?? []).compactMap { Int($0) }.sorted()
  }

  /// The ids of the pending versions, oldest first, as a settle needs them: an error when `pending/`
  /// cannot be listed now (`EIO`), which taken for none would let a save that settles first (versions
  /// off) change what they still read.
  private func listPendingIDs() throws -> [Int] {
    do { return try StoreFiles.names(in: pendingPath).compactMap { Int($0) }.sorted() } catch {
      if error == .noSuchFileOrDirectory { return [] }
      throw PackageError.io(error, "cannot list", path: pendingPath.string, context: "while settling versions")
    }
  }

  /// Whether saves left versions whose contents are not copied into the store yet (see
  /// ``PackageFile/defersVersionCopies``). Until ``settlePendingVersions()`` runs, a write in
  /// place to a package file makes the pending version name that file as not kept.
  public var hasPendingVersions: Bool { !pendingIDs.isEmpty }

  /// Copies the pending versions' contents into the store and makes them versions, oldest first
  /// (what `docpkg` runs as a detached process after a save, and what every reading of the store
  /// runs first). Takes the store's own lock, not the package's: saves go on meanwhile, and a walk
  /// of the package that a save's swap fell inside is done again; when saves
  /// keep coming, or a killed save left its capture marker, the last try takes the package's lock
  /// too, so that saves wait for one walk. Only one process settles at a time; a second waits for
  /// the first, then finds nothing left to do. After a kill, the next call starts the interrupted
  /// version again.
  /// - Returns: The versions made.
  /// - Throws: ``PackageError`` with code `io` if the store or the package cannot be read or written,
  ///   `conflict` if another program moved or replaced the package while it was read (the pending
  ///   versions stay for the next call, at the package's new name).
  /// - Complexity: O(*n*) directory reads and `fstatat`s (relative to each open directory) for the
  ///   package's *n* entries per pending version and try, plus one copy (or clone) of each content
  ///   the store does not hold yet (see `PendingStateWalk`).
  @discardableResult
  public func settlePendingVersions() throws -> [PackageVersion] {
    guard exists, try !listPendingIDs().isEmpty else { return [] }
    var settled: [PackageVersion] = []
    let outcome = try withStoreLock { try settleLocked(into: &settled, savesExcluded: packageLockHeld) }
    // (Never while this instance holds the store's lock already: the package's is taken first.)
    guard outcome == .savesKeptComing, !holdsStoreLock else { return settled }
    // Saves kept changing the package under the walks: walk once more with them held off.
    return try withPackageLock {
      _ = try withStoreLock { try settleLocked(into: &settled, savesExcluded: true) }
      return settled
    }
  }

  /// Runs `body` holding the package's lock, taken unless this instance holds it already: a settle that
  /// `body` starts then takes it no second time (a second `flock` of the lock file by one process waits
  /// for itself: a prune after a killed save hung so, holding off every save). With no save possible, a
  /// capture marker left is a killed save's: recovery completes its record (and the tree it replaced
  /// comes into the store) before the pending versions are read.
  func withPackageLock<T>(_ body: () throws -> T) throws -> T {
    if packageLockHeld { return try body() }
    let lock = try PackageLock(forPackageAt: packagePath)
    defer { withExtendedLifetime(lock) {} }
    packageLockHeld = true
    defer { packageLockHeld = false }
    _ = try? Recovery.recover(packageAt: packagePath, keeper: VersionKeeping.self)
    return try body()
  }

  /// Settles the pending versions, if any, unless this instance is settling already. Readers
  /// list what is settled; a failure is kept in ``settleFailure`` for ``versionProblems()``.
  func settleIfPending() {
    guard !holdsStoreLock, exists, hasPendingVersions else { return }
    do { _ = try settlePendingVersions() } catch {
      if settleFailure == nil { settleFailure = (pendingIDs.first ?? 0, "\(error)") }
    }
  }

  /// Runs `body` holding the store's lock (`lock` in the store, `flock`): held by whatever writes
  /// objects or records without the package's lock held throughout (settling, keeping, removing).
  /// Taken after the package's lock when both are held, never before.
  func withStoreLock<T>(_ body: () throws -> T) throws -> T {
    if holdsStoreLock { return try body() }
    try prepareDirectories()
    let lockPath = path.appending("lock")
    let fd: CInt
    do { fd = try Syscalls.openLockFile(lockPath) } catch {
      throw PackageError.io(error, "cannot open", path: lockPath.string)
    }
    do { try Syscalls.lock(fd, exclusive: true) } catch {
      Syscalls.closeFile(fd)
      throw PackageError.io(error, "cannot lock", path: lockPath.string)
    }
    holdsStoreLock = true
    defer {
      holdsStoreLock = false
      Syscalls.closeFile(fd)
    }
    return try body()
  }

  /// Under the package lock (so no capture is under way): removes what an interrupted capture left
  /// in `pending/` (a replaced tree or a time marker without a record, a temporary), except
  /// `saving.start`: the capture that follows removes it once its own marker is made, so that a
  /// build's links are always marked (see ``PendingStateWalk``); and the marker of a save that swapped
  /// back (``UndoneSwap``) while a pending version before it waits.
  func removeAbandonedPending() {
    guard let fd = try? Syscalls.openFile(pendingPath, [.readOnly, .directory]) else { return }
    defer { Syscalls.closeFile(fd) }
    guard let names = try? Syscalls.entries(ofDirectory: fd).map(\.name.string) else { return }
    var recorded = Set(names.filter { Int($0) != nil })
    // A removal a killed settle announced is the next settle's to complete (it notes the unlinks).
    if let data = try? StoreFiles.read(pendingPath.appending(Self.unlinkingName)),
      let id = String(decoding: data, as: UTF8.self).split(separator: "\n").first
    {
      recorded.insert(String(id))
    }
    let oldest = recorded.compactMap { Int($0) }.min()
    // (Markers that cannot be read now are all kept: what they say may be needed.)
    let undone = oldest.map { oldest in (try? undoneSwaps()).map { Set($0.map(\.id).filter { $0 > oldest }) } } ?? []
    let kept: Set<String> = [DeferredKeeping.savingMarker, Self.unlinkedName, Self.unlinkingName, LinkNote.name]
    for name in names where Int(name) == nil && !kept.contains(name) {
      if let dot = name.firstIndex(of: "."), name.hasSuffix(".old"), recorded.contains(String(name[..<dot])) {
        continue
      }
      if name.hasSuffix(Self.abandonedSuffix), let id = Int(name.dropLast(Self.abandonedSuffix.count)),
        undone.map({ $0.contains(id) }) ?? (id > oldest ?? .max)
      {
        continue
      }
      try? TreeRemoval.remove(RawName(name), in: fd)
    }
  }

  /// How the capture marker of a save that failed is renamed (`ID.abandoned`).
  static let abandonedSuffix = ".abandoned"

  /// The saves that swapped and swapped back (``UndoneSwap``), from their markers in `pending/`,
  /// oldest first. A marker that is not believed (damaged, edited) gives none: the settle then takes
  /// the times its renames moved for another program's change, and names what they touched.
  /// - Throws: ``PackageError`` when a marker cannot be read now (as ``readPendingRecord(_:)``).
  func undoneSwaps() throws -> [UndoneSwap] {
    let names = (try? StoreFiles.names(in: pendingPath)) ?? []
    return try names.compactMap { name -> UndoneSwap? in
      guard name.hasSuffix(Self.abandonedSuffix), let id = Int(name.dropLast(Self.abandonedSuffix.count)) else {
        return nil
      }
      return try StoreFiles.readIfPresent(pendingPath.appending(name)).flatMap(SaveIntent.init)?.undoneSwap(id: id)
    }.sorted { $0.id < $1.id }
  }

  /// How a settle under the store's lock ended.
  enum SettleOutcome {
    /// Every pending version that can be settled was.
    case done
    /// Saves kept changing the package while it was walked: the rest needs the package's lock.
    case savesKeptComing
  }

  /// Settles the pending versions oldest first, appending the versions made to `settled`. A
  /// pending record that cannot be read is left in place with the files it names (the only copy of
  /// what its save replaced) and reported by ``versionProblems()``; the versions after it are
  /// settled without it (a path its save replaced is then read from the package, where its times
  /// name it as not kept). The first version that fails stops the settling, and ``settleFailure``
  /// says why.
  /// - Parameter savesExcluded: The package's lock is held: no save can change the package.
  private func settleLocked(into settled: inout [PackageVersion], savesExcluded: Bool) throws -> SettleOutcome {
    settleFailure = nil
    try prepare()
    completeInterruptedRemoval()
    var damaged = Set<Int>()
    while let first = try listPendingIDs().first(where: { !damaged.contains($0) }) {
      guard let oldest = try readPendingRecord(first) else {
        damaged.insert(first)
        continue
      }
      do {
        switch try settle(oldest, savesExcluded: savesExcluded) {
        case .settled(let version): settled.append(version)
        case .withdrawn: continue
        case .savesKeptComing: return .savesKeptComing
        }
      } catch {
        settleFailure = (oldest.id, "\(error)")
        throw error
      }
    }
    return .done
  }

  /// The pending record `pending/ID`; nil when it cannot be read or is damaged.
  func pendingRecord(_ id: Int) -> PendingVersion? {
    (try? StoreFiles.read(pendingPath.appending(String(id)))).flatMap { PendingVersion(id: id, data: $0) }
  }

  /// The pending record `pending/ID` as a settle needs it: nil when it is damaged (or gone), and an
  /// error when it cannot be read now (`EIO`, no memory for a descriptor): taken for damage, a record
  /// read again later would be settled around, and its version, or the ones before it, would name what
  /// its save changed as not kept, for good.
  private func readPendingRecord(_ id: Int) throws -> PendingVersion? {
    try StoreFiles.readIfPresent(pendingPath.appending(String(id))).flatMap { PendingVersion(id: id, data: $0) }
  }

  /// How many walks a settle tries while saves go on, before it holds them off.
  static let walksBetweenSaves = 6

  /// What one pending version's settle came to.
  private enum PendingOutcome {
    case settled(PackageVersion)
    /// Its record went after it was read: its save failed after writing it, and swapped back.
    case withdrawn
    case savesKeptComing
  }

  /// Makes the oldest pending version a version (see ``PendingStateWalk``) from a walk of the
  /// package that no save's swap fell inside (``SaveSequence``).
  private func settle(_ oldest: PendingVersion, savesExcluded: Bool) throws -> PendingOutcome {
    if let existing = try? record(oldest.id) {  // made before a kill; only the cleanup was left
      removePending(oldest.id, changed: oldest.changed)
      return .settled(existing.version)
    }
    for attempt in 0..<(savesExcluded ? 1 : Self.walksBetweenSaves) {
      let before = SaveSequence.read(in: self)
      // A save whose record is in place may still fail (its folder's flush) and remove it, then swap back: a record
      // read before that and walked after would make a version of a save that never happened. Listed with the rest
      // of the sequence, it is the record of a walk the sequence then vouches for (read again after it).
      if before.listed != nil, !before.lists(oldest.id) { return .withdrawn }
      if !savesExcluded && before.hasSaveInFlight {
        Syscalls.pause(microseconds: 1000 << min(attempt, 5))  // its record follows within milliseconds
        continue
      }
      // The oldest one first whatever the listing holds: a store that another program moved or removed
      // meanwhile lists nothing (a walk of no version, or of a later one in its place, would be wrong).
      let pending = try [oldest] + before.pendingIDs.filter { $0 > oldest.id }.compactMap(readPendingRecord)
      let undone = try undoneSwaps().filter { $0.id > oldest.id }
      var walk = PendingStateWalk(store: self, pending: pending, undone: undone)
      let result = try walk.run()
      let after = SaveSequence.read(in: self)
      if savesExcluded || after.hasSameSaves(as: before) {
        // No save replaced the package's root meanwhile: another program moved or replaced it.
        guard after.root != nil, after.root == before.root else {
          throw PackageError(
            .conflict, "cannot settle pending versions: the package was moved or replaced while it was read:",
            path: packagePath.string, context: "(they are settled at its next reading)")
        }
        return .settled(try finish(oldest, result, unkept: walk.unkept))
      }
    }
    return .savesKeptComing
  }

  private func finish(_ oldest: PendingVersion, _ result: (tree: String, size: Int64)?, unkept: [String]) throws
    -> PackageVersion
  {
    let rootTree = try result?.tree ?? writeEmptyTree(Data())
    let version = PackageVersion(
      id: oldest.id, date: oldest.start.date, origin: .saved, isResolved: true, size: result?.size ?? 0,
      conflictPaths: [], unkeptPaths: unkept)
    let record = VersionRecord(
      version: version, rootTree: rootTree, rootPermissions: oldest.rootPermissions, rootTime: oldest.rootTime,
      follows: newestRecordedID(before: oldest.id))
    try StoreFiles.writeAtomically(
      record.encoded(), to: versionsPath.appending(String(oldest.id)), temporary: temporaryPath)
    removePending(oldest.id, changed: oldest.changed)
    if let count = oldest.keepLast { _ = try pruneLocked(keepingLast: count) }
    return version
  }

  private func writeEmptyTree(_ data: Data) throws -> String {
    let hash = ContentHash.of(data)
    var writer = ObjectWriter(store: self, cache: HashCache(path: hashesPath))
    try writer.writeObject(hash) { fd throws(Errno) in try StoreFiles.write(data, to: fd) }
    try writer.finish()
    return hash
  }

  /// The name in `pending/` of the paths whose replaced trees a settle removed while pending
  /// versions waited (`removePending`).
  static let unlinkedName = "unlinked"

  /// The name in `pending/` of the settled version whose replaced tree a settle is removing
  /// (`removePending`): its id and path, written before the first unlink.
  static let unlinkingName = "unlinking"

  /// Removes a settled pending version: its record first, then its replaced tree. Removing the
  /// tree unlinks files the package still links (a save carried them over by hard links), which
  /// moves their change times: while other pending versions wait, the path and those files'
  /// statuses just before the unlinks are appended to `pending/unlinked` (``UnlinkedNote``), whose
  /// modification time then bounds those moves (``PendingStateWalk``); once none waits, the file
  /// goes. The removal is announced first (`pending/unlinking`, with the statuses when other
  /// versions wait): a settle killed between an unlink and that note leaves the announcement, and
  /// the next settle completes the removal and the note (`completeInterruptedRemoval()`) before it
  /// walks, so the moved change times are never taken for another program's change, nor another
  /// program's change before an unlink for the unlink.
  private func removePending(_ id: Int, changed: String) {
    let waiting = ((try? StoreFiles.names(in: pendingPath)) ?? []).contains {
      Int($0).map { $0 != id } ?? $0.hasSuffix(".start")
    }
    let shared = waiting ? UnlinkedNote.sharedFiles(under: pendingPath.appending("\(id).old")) : []
    var text = "\(id)\n\(VersionEscaping.escape(changed))\n"
    for entry in shared { text += "seen \(entry.encoded)\n" }
    let marker = pendingPath.appending(Self.unlinkingName)
    guard (try? StoreFiles.writeAtomically(Data(text.utf8), to: marker, temporary: temporaryPath)) != nil else {
      return
    }
    removeReplacedTree(id, changed: changed, shared: shared)
  }

  /// Under the store's lock, before a walk: completes the removal a killed settle announced.
  func completeInterruptedRemoval() {
    let marker = pendingPath.appending(Self.unlinkingName)
    guard let data = try? StoreFiles.read(marker) else { return }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count >= 2, let id = Int(lines[0]) else {
      try? Syscalls.unlink(marker)  // cut short before it was renamed in: nothing was unlinked
      return
    }
    let shared = lines.dropFirst(2).compactMap { line -> PendingVersion.Seen? in
      let parts = line.split(separator: " ")
      return parts.count == 5 && parts[0] == "seen" ? PendingVersion.Seen(Array(parts.dropFirst())) : nil
    }
    removeReplacedTree(id, changed: VersionEscaping.unescape(lines[1]), shared: shared)
  }

  /// `removePending`'s work after its announcement, which it removes last.
  private func removeReplacedTree(_ id: Int, changed: String, shared: [PendingVersion.Seen]) {
    guard let fd = try? Syscalls.openFile(pendingPath, [.readOnly, .directory]) else { return }
    defer { Syscalls.closeFile(fd) }
    try? Syscalls.unlink(in: fd, RawName(String(id)), directory: false)
    // Its files that a save linked into the package live on there, their change times moved.
    var relinked: [RelinkedFile] = []
    try? TreeRemoval.remove(RawName("\(id).old"), in: fd, relinked: &relinked)
    HashCache.noteRelinked(relinked, at: hashesPath)
    noteUnlinked(changed, seen: shared + relinked.map { PendingVersion.Seen($0.before) }, in: fd)
    try? Syscalls.unlink(in: fd, RawName(Self.unlinkingName), directory: false)
  }

  /// Appends `changed` and the statuses `seen` of the files the removal unlinked another name of to
  /// `pending/unlinked` (one ``UnlinkedNote`` batch, after the end of the one before) and sets its
  /// modification time, after the unlinks, when other pending versions wait; removes the file (and
  /// `pending/linking`, ``LinkNote``) when none does. Through `fd`, `pending/` open since before the unlinks, not its
  /// path: a store moved meanwhile (with its package, to another folder) gets the note that explains them.
  private func noteUnlinked(_ changed: String, seen: [PendingVersion.Seen], in fd: CInt) {
    let names = (try? Syscalls.entries(ofDirectory: fd).map(\.name.string)) ?? []
    let unlinked = RawName(Self.unlinkedName)
    guard names.contains(where: { Int($0) != nil || $0.hasSuffix(".start") }) else {
      try? Syscalls.unlink(in: fd, unlinked, directory: false)
      try? Syscalls.unlink(in: fd, RawName(LinkNote.name), directory: false)
      return
    }
    guard let file = try? Syscalls.openFile(in: fd, unlinked, [.writeOnly, .create, .append, .noFollow], mode: 0o644)
    else {
      return
    }
    defer { Syscalls.closeFile(file) }
    // Where the batch before ended: the time it set, read before this one's write moves it.
    let previousEnd = (try? Syscalls.status(of: file)).flatMap { $0.size > 0 ? $0.modificationTime : nil }
    try? StoreFiles.write(UnlinkedNote.batch(path: changed, seen: seen, previousEnd: previousEnd), to: file)
    try? Syscalls.setModificationTimeToNow(file)
  }
}
