#if os(Linux)
import Dispatch
import SystemPackage

/// One inotify instance and the thread that reads it, shared by every ``PackageMonitor`` of the
/// process (so a process watching 500 documents uses one of the user's
/// `fs.inotify.max_user_instances`, 128 by default, not 500).
///
/// The reader thread waits in `poll` on the instance, reads its events and hands each to the
/// `WatchInbox` of every monitor using the event's watch; `IN_Q_OVERFLOW` (events of the whole
/// instance were lost) goes to every monitor of the instance, and each rescans its package.
/// The kernel gives the same watch to the same directory, so two monitors of one folder share a
/// watch: it is added with `IN_MASK_ADD` (masks add up) and removed from the kernel only when no
/// monitor uses it any more. A watch is added and registered under one lock that the reader also
/// takes to dispatch, so no event of a new watch is dispatched before its monitor is known.
final class WatchInstance: @unchecked Sendable {
  /// The inotify descriptor.
  let descriptor: CInt
  /// Whether this is the process's shared instance, which lives as long as the process.
  private let isShared: Bool
  private let lock = SystemLock()
  /// The monitors using each watch.
  private var users: [CInt: [ObjectIdentifier: WatchInbox]] = [:]
  /// Every monitor of the instance (an overflow goes to all).
  private var inboxes: [ObjectIdentifier: WatchInbox] = [:]
  /// Set when a private instance has no monitor left: its thread closes it and ends.
  private var closing = false

  /// A new instance with its reader thread. Monitors use ``shared()``; a test gives a monitor an
  /// instance of its own (``PackageMonitor/Options``) to set the kernel's queue size for it alone.
  /// - Throws: `Errno` from `inotify_init1` (`EMFILE` at `fs.inotify.max_user_instances`).
  init(shared: Bool = false) throws(Errno) {
    descriptor = try Syscalls.watchInit()
    isShared = shared
    // A serial queue of its own: an overcommitting Dispatch thread, never one of the cooperative pool's.
    DispatchQueue(label: "PackageMonitor inotify").async { [self] in readUntilClosed() }
  }

  private static let sharedLock = SystemLock()
  nonisolated(unsafe) private static var sharedInstance: WatchInstance?

  /// The process's instance, made on first use (and again after a failed attempt).
  /// - Throws: `Errno` from `inotify_init1`.
  static func shared() throws(Errno) -> WatchInstance {
    let made: Result<WatchInstance, Errno> = sharedLock.withLock {
      if let sharedInstance { return .success(sharedInstance) }
      do throws(Errno) {
        let instance = try WatchInstance(shared: true)
        sharedInstance = instance
        return .success(instance)
      } catch {
        return .failure(error)
      }
    }
    return try made.get()
  }

  /// Starts delivering this instance's events for `inbox`'s watches (and every overflow) to it.
  func register(_ inbox: WatchInbox) {
    lock.withLock { inboxes[ObjectIdentifier(inbox)] = inbox }
  }

  /// Stops delivering to `inbox` and drops the watches only it used. A private instance with no
  /// monitor left is closed.
  func unregister(_ inbox: WatchInbox) {
    let id = ObjectIdentifier(inbox)
    lock.withLock {
      inboxes[id] = nil
      for (watch, using) in users where using[id] != nil { dropUser(id, of: watch) }
      if inboxes.isEmpty && !isShared { closing = true }
    }
  }

  /// Adds a watch on the directory at `path` for `inbox` (or adds `inbox` to the directory's watch).
  /// - Throws: `Errno` from `inotify_add_watch` (`ENOSPC` at `fs.inotify.max_user_watches`).
  func addWatch(_ path: FilePath, mask: UInt32, for inbox: WatchInbox) throws(Errno) -> CInt {
    let added: Result<CInt, Errno> = lock.withLock {
      do throws(Errno) {
        let watch = try Syscalls.addWatch(descriptor, path, mask: mask | WatchMask.addToMask)
        users[watch, default: [:]][ObjectIdentifier(inbox)] = inbox
        return .success(watch)
      } catch {
        return .failure(error)
      }
    }
    return try added.get()
  }

  /// `inbox` no longer needs `watch`; the kernel's watch goes when nobody does.
  func removeWatch(_ watch: CInt, for inbox: WatchInbox) {
    lock.withLock { dropUser(ObjectIdentifier(inbox), of: watch) }
  }

  /// Called holding `lock`.
  private func dropUser(_ id: ObjectIdentifier, of watch: CInt) {
    guard var using = users[watch], using.removeValue(forKey: id) != nil else { return }
    if using.isEmpty {
      users[watch] = nil
      Syscalls.removeWatch(descriptor, watch)
    } else {
      users[watch] = using
    }
  }

  /// The reader thread: reads and dispatches events until a private instance is closed.
  private func readUntilClosed() {
    while true {
      if lock.withLock({ closing }) {
        Syscalls.closeFile(descriptor)
        return
      }
      guard Syscalls.waitReadable(descriptor, milliseconds: 1000) else { continue }
      do throws(Errno) {
        dispatch(try Syscalls.readWatchEvents(descriptor))
      } catch {
        for inbox in lock.withLock({ Array(inboxes.values) }) { inbox.fail(error) }
        Syscalls.pause(microseconds: 100_000)
      }
    }
  }

  /// Hands each event to the monitors using its watch (an overflow to all), in order.
  private func dispatch(_ events: [WatchEvent]) {
    var batches: [ObjectIdentifier: (inbox: WatchInbox, events: [WatchEvent])] = [:]
    lock.withLock {
      for event in events {
        let targets = event.has(WatchMask.overflow) ? inboxes : users[event.watch] ?? [:]
        for (id, inbox) in targets { batches[id, default: (inbox: inbox, events: [])].events.append(event) }
        if event.has(WatchMask.ignored) { users[event.watch] = nil }  // the kernel dropped the watch
      }
    }
    for batch in batches.values { batch.inbox.deliver(batch.events) }
  }
}
#endif
