import DocumentPackage

// Watch: sync after every local save, and whenever the remote's head moves, until cancelled.
//
// Three child tasks: the package's monitor (PackageMonitor, which sees saves by any process; this sync's own pulls
// are left out, told apart exactly by their save owner) notes each burst of changes; a timer notes every
// `pollInterval` that the head is due to be asked about; the loop takes what was noted. A local change waits
// `debounce` more (a program saving several times in a row makes one sync), then syncs (``sync(maximumAttempts:progress:)``:
// pull, merge, push, again until the push lands). A poll is a conditional GET of the head with the ETag this package
// last synced (`If-None-Match`): the server answers 304 with no body while no other device pushed, so polling
// costs one small request per interval; a head that moved makes a sync. Changes noted while a sync runs make one
// more sync after it.
//
// A sync that cannot reach the remote (refused or reset connections, timeouts, a server answering 5xx) is tried
// again after the sync's backoff (0.1 s doubled up to 3.2 s, or longer when the failed round took long), for as
// long as the watch runs; the first such failure is reported once (`unreachable`), the first sync that lands after
// it once (`reachable`). A sync whose every round lost to other devices' pushes is reported (`notLanded`) and tried
// again after the backoff. After each sync, the package's unresolved conflict versions not reported yet are
// (`conflict`): kept by this sync's pull, or another device's that came with the head. Any other failure (a rolled-back head, a wrong passphrase, a damaged remote, a package
// that cannot be saved or was deleted) ends the watch with that error: retrying would meet it again.

extension PackageSync {
  /// How ``watch(options:)`` syncs.
  public struct WatchOptions: Sendable, Hashable {
    /// How often the remote's head is asked whether it moved (a conditional GET; 1 s unless set). At least 10 ms.
    public var pollInterval: Duration = .seconds(1)
    /// How long after a local change the sync starts (further changes meanwhile join it; 100 ms unless set).
    public var debounce: Duration = .milliseconds(100)
    /// The most rounds of pull and push of each sync (``sync(maximumAttempts:progress:)``).
    public var maximumAttempts = PackageSync.defaultSyncAttempts

    /// The defaults: a poll every second, 100 ms of debounce, ``PackageSync/defaultSyncAttempts`` rounds.
    public init() {}
  }

  /// What a watch reports (``watch(options:)``).
  public enum WatchEvent: Sendable {
    /// A sync that changed something (pulled, merged, kept a conflict version, or pushed). Syncs that found both
    /// sides up to date are not reported.
    case synced(SyncResult)
    /// The remote could not be reached (the first failure after a sync that landed, or at start): syncs are tried
    /// again with backoff until it answers.
    case unreachable(SyncError)
    /// The remote answers again after ``unreachable(_:)``: a sync landed.
    case reachable
    /// Other devices pushed first in every round of a sync; it is tried again after the backoff (nothing is lost:
    /// the package keeps what it pulled).
    case notLanded(SyncError)
    /// An unresolved conflict version `version` of the entries `paths`, reported once, after the sync that kept it
    /// (a pull here kept this package's side, or another device's conflict version came with the remote's head);
    /// those unresolved when the watch starts are reported after its first sync.
    case conflict(version: Int, paths: [String])
  }

  /// Syncs the package now and then after every local save (by any process) and whenever another device moved the
  /// remote's head, until the task that iterates the sequence is cancelled or the sequence is dropped. Conflicts
  /// become conflict versions as with ``sync(maximumAttempts:progress:)``, and show in the results.
  ///
  /// ```swift
  /// for try await event in sync.watch() {
  ///   if case .synced(let result) = event, !result.conflicts.isEmpty { showConflictBadge() }
  /// }
  /// ```
  ///
  /// Between saves the remote is polled every ``WatchOptions/pollInterval`` with a conditional GET of its head
  /// (answered 304 with no body while nothing changed). An unreachable remote is retried with backoff for as long
  /// as the watch runs (reported once by ``WatchEvent/unreachable(_:)``, and ``WatchEvent/reachable`` when it
  /// answers again). Installs no signal handler.
  /// - Parameter options: The poll interval, debounce and attempts of each sync.
  /// - Returns: The syncs that changed something and the remote's reachability, as they happen. The sequence
  ///   ends when the iterating task is cancelled; it throws what ends the watch otherwise: ``SyncError`` (a
  ///   rolled-back head, a wrong passphrase, a damaged remote, …) or `PackageError` (the package cannot be
  ///   watched or saved, or was deleted).
  public func watch(options: WatchOptions = WatchOptions()) -> AsyncThrowingStream<WatchEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<WatchEvent, any Error>.makeStream()
    let task = Task.detached { [self] in
      do {
        try await watching(options: options) { continuation.yield($0) }
        continuation.finish()
      } catch {
        if Task.isCancelled { continuation.finish() } else { continuation.finish(throwing: error) }
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// The watch: the monitor, the poll timer and the loop, until cancelled or a failure ends it.
  private func watching(options: WatchOptions, report: @escaping @Sendable (WatchEvent) -> Void) async throws {
    let packagePath = folder.packagePath
    let owner = ObjectIdentifier(self)
    // Set-up lists the package's directories: off the cooperative pool.
    let monitor = try await BlockingIO.run {
      var monitorOptions = PackageMonitor.Options()
      monitorOptions.owner = owner
      monitorOptions.reportsOwnSaves = false
      return try PackageMonitor(watching: packagePath, options: monitorOptions)
    }
    defer { monitor.stop() }
    let triggers = WatchTriggers()
    let interval = max(options.pollInterval, .milliseconds(10))
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for try await _ in monitor { triggers.noteLocalChange() }
        try Task.checkCancellation()
        throw PackageError(.noSuchEntry, "the package was deleted; stopped watching", path: packagePath.string)
      }
      group.addTask {
        while true {
          try await Task.sleep(for: interval)
          triggers.notePollDue()
        }
      }
      group.addTask { try await self.syncLoop(options: options, triggers: triggers, report: report) }
      defer { group.cancelAll() }
      try await group.next()
    }
  }

  /// Syncs at start, then whenever `triggers` say a local change happened or a poll found the head moved.
  private func syncLoop(
    options: WatchOptions, triggers: WatchTriggers, report: @Sendable (WatchEvent) -> Void
  ) async throws {
    var wakeUps = triggers.wakeUps.makeAsyncIterator()
    var syncDue = true
    var failures = 0
    var saidUnreachable = false
    var reportedConflicts = Set<Int>()
    let packagePath = folder.packagePath
    while !Task.isCancelled {
      if !syncDue {
        guard await wakeUps.next() != nil else { return }
        let reasons = triggers.take()
        if reasons.localChange {
          try await Task.sleep(for: options.debounce)
          _ = triggers.take()
          syncDue = true
        } else if reasons.pollDue {
          // A poll that fails is a sync due: the sync's failure says what it is and is retried with backoff.
          syncDue = (try? await headMoved()) ?? true
        }
        guard syncDue else { continue }
      }
      do {
        let result = try await sync(maximumAttempts: options.maximumAttempts)
        (syncDue, failures) = (false, 0)
        if saidUnreachable {
          saidUnreachable = false
          report(.reachable)
        }
        if !result.isUpToDate { report(.synced(result)) }
        let unresolved = try await BlockingIO.run { try VersionStore(forPackageAt: packagePath).unresolvedConflicts() }
        for version in unresolved where reportedConflicts.insert(version.id).inserted {
          report(.conflict(version: version.id, paths: version.conflictPaths))
        }
      } catch let error as SyncError where error.code == .cancelled || Task.isCancelled {
        return
      } catch let error as SyncError where error.isTransient || error.code == .unreachable {
        failures += 1
        if !saidUnreachable {
          saidUnreachable = true
          report(.unreachable(error))
        }
        try await Task.sleep(for: Self.syncBackoff(afterRound: failures))
      } catch let error as SyncError where error.code == .preconditionFailed {
        failures += 1
        report(.notLanded(error))
        try await Task.sleep(for: Self.syncBackoff(afterRound: failures))
      }
    }
  }

  /// Whether the remote's head is no longer the one this package last synced: a conditional GET with that head's
  /// ETag, which the server answers 304 with no body while it is. True when the package never synced.
  /// - Throws: ``SyncError`` when the head cannot be asked for.
  package func headMoved() async throws -> Bool {
    let (folder, name) = (self.folder, remote.name)
    guard let etag = try await BlockingIO.run({ folder.state(name)?.etag }), !etag.isEmpty else { return true }
    do {
      return try await client.get(headKey, ifNoneMatch: etag, limit: 1 << 16) != nil
    } catch let error as SyncError where error.code == .noSuchKey {
      return true
    }
  }
}
