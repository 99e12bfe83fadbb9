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
/// ## Notifications or polling
/// inotify reports the changes made through this machine's kernel. On a network file system or
/// FUSE, files also change where this kernel does not see it (on the server side of an sshfs or NFS
/// share, on another SMB client, in a FUSE daemon), and inotify says nothing. So the monitor looks at
/// the package's file system when it starts (`statfs`'s `f_type`): on FUSE (sshfs, rclone, s3fs,
/// virtiofs, exFAT and FAT through FUSE…), NFS, SMB/CIFS, 9P, VirtualBox shared folders, Coda,
/// AFS, Ceph, Lustre, GPFS, GFS2 or OCFS2 it **polls**: every ``Options/pollingInterval`` (1 s
/// unless set) after the last poll ended, it lists the package's directories (one `getdents`
/// series and one `fstatat` per entry; no file is opened or read) and compares each entry's kind,
/// inode, size, modification time and permissions with what it had. What differs is compared and
/// reported as in inotify mode below, as the same ``Change``s, so an edit on the server side is
/// reported within the interval plus the time the file system takes to show it (the kernel keeps a
/// FUSE file's attributes up to 1 s; sshfs keeps its own cache 20 s unless mounted with
/// `-o dir_cache=no`). ``Options/alwaysPolls`` polls anywhere; ``mode`` says which is used, and why.
/// A poll walks the directories with an explicit stack, each opened relative to its parent, and
/// skips a directory it cannot list (the next poll looks again). Polling cannot tell an edit that
/// keeps a file's size, inode and modification time (sshfs gives whole seconds), which inotify mode,
/// comparing the same signatures, would not report either; and a rename on a file system that
/// numbers a moved entry anew (sshfs) is a removal and an addition. A polling monitor uses no
/// inotify watch or instance.
///
/// ## How it works (Linux)
/// One inotify instance for all the monitors of a process, read by one thread that hands each event
/// to the monitor of its watch (`WatchInstance`); each monitor has a thread of its own that
/// collects its events into bursts and compares (never a thread of the cooperative pool: both wait
/// in `poll` or on a semaphore). Set-up adds one watch per directory of the
/// package and then lists it (watch first, so that an entry created meanwhile is either listed or
/// reported), keeping the status of every entry (kind, inode, size, modification time, permissions);
/// a ``Document``'s monitor lists the root alone and finds the directories below it without looking at
/// their files (`WatchedTree`, "Lazy listing").
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
/// **The package itself.** `IN_MOVE_SELF`/`IN_DELETE_SELF` on the package directory, an event in
/// the parent about the package's name, or `IN_MOVE_SELF` on the parent or any directory above it (a
/// folder on the way to the package renamed: each is watched for that alone) make the monitor look at
/// the package's path:
/// - a directory with the same inode: nothing happened to the package;
/// - a directory with another inode: another directory took the name — an atomic save, ours
///   (`renameat2(RENAME_EXCHANGE)`, which leaves the old watches on the old inode) or another
///   program's. The monitor starts over on the new directory (all watches again) and reports
///   ``PackageMonitor/Change/Kind-swift.enum/packageReplaced`` with the entries that differ (hard-linked
///   unchanged files keep their inode and are not reported);
/// - nothing there: the descriptor kept on the package says where it went
///   (`/proc/self/fd`): ``PackageMonitor/Change/Kind-swift.enum/packageMoved`` with the new path (the watches follow
///   the inodes; the new parent and the folders above it are watched instead of the old); or, if it is deleted,
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
/// **Removals before a deletion.** A ``Document``'s monitor holds removals back (for 300 ms): a
/// burst whose changes are all removals is not reported at once: it joins the next burst, and is
/// reported alone only when no event came for that long and the package is still there. An
/// `rm -rf` of the package is then one ``PackageMonitor/Change/Kind-swift.enum/packageDeleted``
/// event listing what went before the package, not removals and then a deletion.
///
/// **Own saves.** Before a ``PackageFile`` in this process swaps a new subtree (or package) in, it
/// tells `OwnSaves` the new directory's inode. A burst in which a name took one of those inodes
/// (or the package was replaced by one) is this process's save: it is marked
/// ``PackageMonitor/Event/isOwnSave``, or left out with ``Options/reportsOwnSaves`` false. This is
/// exact, not a time window (each placement is taken once, and only by the entry born when it was
/// placed, where the file system keeps birth times: a freed number given again to another program's
/// entry is not a save); an outside change that falls in the same burst as our save is
/// reported with it, marked as ours (a program that ignores the package lock and writes during our
/// save, or one that writes just after it, before the burst was compared), and the event says what
/// the save put in place and what it carried into directories its model never listed, so that a
/// ``Document`` tells the two apart, change by change.
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
    /// How long a polling monitor waits after one poll of the package before the next (see
    /// ``PackageMonitor``, "Notifications or polling"). A change is reported about this plus
    /// ``delay`` after it is made, at the latest. Each poll lists every directory of the package:
    /// make it longer for a package of many thousands of entries on a slow share. At least 10 ms
    /// are waited.
    public var pollingInterval: Duration = .seconds(1)
    /// Whether to poll even where the system's notifications see every change (the default, false,
    /// polls only where they may not: network and FUSE file systems).
    public var alwaysPolls = false
    /// Whose saves are own saves (``PackageFile/saveOwner``); nil (the default): every save of
    /// this process. A ``Document`` gives its own.
    package var owner: ObjectIdentifier?
    /// Whether set-up lists only the package's root, watching the directories below without looking at
    /// their files (see `WatchedTree`, "Lazy listing"): what a ``Document`` asks, so that opening a
    /// package of a million files costs its directories. False (the default): every entry is listed.
    package var listsLazily = false
    /// How long a burst of removals alone is held back, waiting for what comes next (`nil`: not
    /// held). A program deleting the package (`rm -rf`) removes its entries one by one before the
    /// package itself, often over several bursts: held removals join the bursts that follow, so
    /// that the deletion is one event, ``Change/Kind-swift.enum/packageDeleted`` first, then the
    /// removals. Removals the package survives are reported once no event came for this long
    /// (polling: this plus ``pollingInterval``) and the package is still the directory it was.
    /// A ``Document`` gives `Document.removalsWait`.
    package var removalsWait: Duration?
    /// Called on the monitor's thread before it compares each burst (the test suite holds a
    /// burst back with it, to change the package after the burst's events and before the
    /// comparison, as a busy machine's scheduler may).
    package var beforeComparing: (@Sendable () -> Void)?
    #if os(Linux)
    /// The inotify instance to use; nil (the default) for the process's shared one. Tests give a
    /// monitor one of its own to set the kernel's event queue size for it alone.
    var instance: WatchInstance?
    #endif

    /// The defaults: 25 ms quiet, at most 500 ms, own saves reported, notifications where they see
    /// every change and polling every second elsewhere.
    public init() {}
  }

  /// The package's path when the monitor started.
  public let path: FilePath
  /// How the monitor learns of changes: inotify, or polling (with the interval and the reason),
  /// chosen when it started.
  public let mode: Mode
  private let stream: AsyncThrowingStream<PackageMonitor.Event, any Error>
  private let runner: MonitorRunner

  /// Starts watching the package at `path`. Set-up is done when this returns: any change after it is reported.
  /// - Parameters:
  ///   - path: The package directory.
  ///   - options: How to group and filter changes, and when to poll.
  /// - Throws: ``PackageError`` with code `limitExceeded` when the system's inotify watch or instance limit is
  ///   reached, `io` when the package cannot be opened or listed, `unsupported` on platforms
  ///   without a monitor yet.
  /// - Complexity: one watch and one listing per directory, one `lstat` per entry (no watch when polling).
  public init(watching path: FilePath, options: Options = Options()) throws {
    let resolved = Syscalls.resolvingLinks(path) ?? path
    self.path = resolved
    #if os(Linux)
    mode = Self.mode(for: resolved, options: options)
    var options = options
    if case .polling(let interval, _) = mode { options.pollingInterval = interval }
    let tree = try WatchedTree(
      packagePath: resolved, instance: options.instance, polls: mode != .notifications, lazily: options.listsLazily)
    let (stream, continuation) = AsyncThrowingStream<PackageMonitor.Event, any Error>.makeStream()
    self.stream = stream
    runner = MonitorRunner(tree: tree, options: options, continuation: continuation)
    let runner = self.runner
    continuation.onTermination = { _ in runner.stop() }
    // A serial queue of its own: an overcommitting Dispatch thread, never one of the cooperative pool's.
    DispatchQueue(label: "PackageMonitor").async { runner.run() }
    #else
    mode = .notifications
    throw PackageError(
      .unsupported, "monitoring packages is not available on this platform yet:", path: resolved.string)
    #endif
  }

  /// The number of directories watched now (each uses one of the system's inotify watches), or
  /// listed at each poll when polling.
  public var watchedDirectoryCount: Int { runner.watchCount }

  /// Stops watching; the sequence ends.
  public func stop() { runner.stop() }

  deinit { runner.stop() }

  /// The events, in order. One iterator per monitor.
  public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }
}
