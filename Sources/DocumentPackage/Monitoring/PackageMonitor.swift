import Dispatch
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

/// Watches a package on disk and reports what changes under it, as an `AsyncSequence` of
/// ``PackageMonitor/Event``s.
///
/// ```swift
/// let monitor = try PackageMonitor(watching: "/home/ann/Notes.mydoc")
/// for try await event in monitor {
///   for change in event.changes { print(change) }   // "modified Data/a.txt"
/// }
/// ```
///
/// ## How it works (Linux)
/// One inotify instance for all the monitors of a process, read by one thread that hands each event
/// to the monitor of its watch (`WatchInstance`); each monitor has a thread of its own that
/// collects its events into bursts and compares (never a thread of the cooperative pool: both wait
/// in `poll` or on a semaphore). Set-up adds one watch per directory of the
/// package and then lists it (watch first, so that an entry created meanwhile is either listed or
/// reported), keeping the status of every entry (kind, inode, size, modification time, permissions).
/// The package's parent directory is watched too, for entries named like the package, and a
/// descriptor stays open on the package directory.
///
/// Events are collected into a burst until none came for ``Options/delay`` (or the burst is
/// ``Options/maximumDelay`` old), so that a program writing 100 files is one event. An unmatched
/// half of a move (`IN_MOVED_FROM` whose `IN_MOVED_TO` has not come: the two share a cookie but are not
/// always adjacent) holds the burst back up to ``Options/delay`` more. Then, only for the names the events were
/// about, the monitor looks again (`lstat`) and compares with what it had: a new or changed
/// directory inode is watched and listed (its subtree only), a gone one forgets its subtree and
/// its watches; the two halves of a move with the same inode become one ``PackageMonitor/Change/Kind-swift.enum/renamed``,
/// and the entries under a renamed directory are compared by their relative paths. Nothing is
/// listed again for a changed file: its directory's watch said which name it was.
///
/// **The package itself.** `IN_MOVE_SELF`/`IN_DELETE_SELF` on the package directory, or an event in
/// the parent about the package's name, make the monitor look at the package's path:
/// - a directory with the same inode: nothing happened to the package;
/// - a directory with another inode: another directory took the name — an atomic save, ours
///   (`renameat2(RENAME_EXCHANGE)`, which leaves the old watches on the old inode) or another
///   program's. The monitor starts over on the new directory (all watches again) and reports
///   ``PackageMonitor/Change/Kind-swift.enum/packageReplaced`` with the entries that differ (hard-linked
///   unchanged files keep their inode and are not reported);
/// - nothing there: the descriptor kept on the package says where it went
///   (`/proc/self/fd`): ``PackageMonitor/Change/Kind-swift.enum/packageMoved`` with the new path (the watches follow
///   the inodes; the new parent is watched instead of the old); or, if it is deleted,
///   ``PackageMonitor/Change/Kind-swift.enum/packageDeleted``, and the sequence ends.
/// A save that exchanges a subdirectory D of the package shows as D's name moving in its
/// container: D is compared as above.
///
/// **Failure cases.**
/// - `IN_Q_OVERFLOW` (more than `fs.inotify.max_queued_events` events, 16,384 by default, before the
///   thread read them): events were lost, so every monitor of the instance lists its whole package
///   again and compares; the event carries ``PackageMonitor/Change/Kind-swift.enum/rescanned`` before the differences.
/// - `fs.inotify.max_user_watches` reached (`ENOSPC`): set-up throws ``PackageError`` with code
///   `limitExceeded` naming the directory and the limit to raise; if it happens later (a new
///   directory), the sequence ends with that error. There is no silent degraded mode.
/// - `fs.inotify.max_user_instances` reached (`EMFILE` from `inotify_init`; 128 by default, shared by all
///   of a user's programs; a process uses one, made by its first monitor): set-up throws ``PackageError`` with code `limitExceeded` naming that limit.
/// - A directory that vanishes between its event and the look is skipped: its parent's event reports it.
/// - Events that happen while a burst is compared are read in the next burst.
/// - Changes inside a moved directory made during the same burst are compared by path under its new name.
///
/// **Own saves.** Before a ``PackageFile`` in this process swaps a new subtree (or package) in, it
/// tells `OwnSaves` the new directory's inode. A burst in which a name took one of those inodes
/// (or the package was replaced by one) is this process's save: it is marked
/// ``PackageMonitor/Event/isOwnSave``, or left out with ``Options/reportsOwnSaves`` false. This is
/// exact, not a time window; an outside change that falls in the same burst as our save is
/// reported with it, marked as ours (a program that ignores the package lock and writes during our save).
///
/// ## macOS (designed, not written)
/// FSEvents (`FSEventStreamCreate` with `kFSEventStreamCreateFlagFileEvents |
/// kFSEventStreamCreateFlagWatchRoot | kFSEventStreamCreateFlagUseExtendedData`) on the package path,
/// latency = ``Options/delay``, scheduled on a private dispatch queue: one stream for the whole tree
/// (no per-directory watches, no watch limit). `kFSEventStreamEventFlagMustScanSubDirs` plays the part
/// of `IN_Q_OVERFLOW`; `kFSEventStreamEventFlagRootChanged` the parent watch; the renamed flag with the
/// file ID pairs moves. A `DispatchSource.makeFileSystemObjectSource` on an `O_EVTONLY` descriptor of
/// the package gives `.rename`/`.delete` for the package itself, and `fcntl(F_GETPATH)` its new path.
/// The comparison after a burst is the same as on Linux.
public final class PackageMonitor: AsyncSequence, Sendable {
  public typealias Element = PackageMonitor.Event
  public typealias AsyncIterator = AsyncThrowingStream<PackageMonitor.Event, any Error>.Iterator

  /// How a monitor groups and filters what it reports.
  public struct Options: Sendable {
    /// How long the package must be quiet before a burst of events is reported. The latency of
    /// a report is about this plus the time to compare.
    public var delay: Duration = .milliseconds(25)
    /// The longest a burst is held back while events keep coming.
    public var maximumDelay: Duration = .milliseconds(500)
    /// Whether changes made by this process's own saves are reported (marked
    /// ``PackageMonitor/Event/isOwnSave``) or left out.
    public var reportsOwnSaves = true
    #if os(Linux)
    /// The inotify instance to use; nil (the default) for the process's shared one. Tests give a
    /// monitor one of its own to set the kernel's event queue size for it alone.
    var instance: WatchInstance?
    #endif

    /// The defaults: 25 ms quiet, at most 500 ms, own saves reported.
    public init() {}
  }

  /// The package's path when the monitor started.
  public let path: FilePath
  private let stream: AsyncThrowingStream<PackageMonitor.Event, any Error>
  private let runner: MonitorRunner

  /// Starts watching the package at `path`. Set-up is done when this returns: any change after it is reported.
  /// - Throws: ``PackageError`` with code `limitExceeded` when the system's inotify watch or instance limit is
  ///   reached, `io` when the package cannot be opened or listed, `unsupported` on platforms
  ///   without a monitor yet.
  /// - Complexity: one watch and one listing per directory, one `lstat` per entry.
  public init(watching path: FilePath, options: Options = Options()) throws {
    let resolved = Syscalls.resolvingLinks(path) ?? path
    self.path = resolved
    #if os(Linux)
    let tree = try WatchedTree(packagePath: resolved, instance: options.instance)
    let (stream, continuation) = AsyncThrowingStream<PackageMonitor.Event, any Error>.makeStream()
    self.stream = stream
    runner = MonitorRunner(tree: tree, options: options, continuation: continuation)
    let runner = self.runner
    continuation.onTermination = { _ in runner.stop() }
    // A serial queue of its own: an overcommitting Dispatch thread, never one of the cooperative pool's.
    DispatchQueue(label: "PackageMonitor").async { runner.run() }
    #else
    throw PackageError(
      .unsupported, "monitoring packages is not available on this platform yet:", path: resolved.string)
    #endif
  }

  /// The number of directories watched now (each uses one of the system's inotify watches).
  public var watchedDirectoryCount: Int { runner.watchCount }

  /// Stops watching; the sequence ends.
  public func stop() { runner.stop() }

  deinit { runner.stop() }

  /// The events, in order. One iterator per monitor.
  public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }
}
