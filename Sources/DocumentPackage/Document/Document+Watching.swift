import SystemPackage

extension Document {
  /// Whether the document watches its package for outside changes (see ``OutsideChange``).
  ///
  /// On by default, as `UIDocument`'s file presenter is; off with ``Options/unwatched`` or
  /// ``stopWatching()``. The cost of watching, on Linux: one inotify watch per directory of the
  /// package (found without looking at the files: the monitor lists the root alone, see `WatchedTree`,
  /// "Lazy listing") and a thread per document that collects its bursts; the inotify instance and the
  /// thread reading it are shared by all the monitors of the process (``PackageMonitor``), so
  /// `fs.inotify.max_user_instances` (128 on most systems, for *all* a user's programs) is not a
  /// limit on how many documents an app watches. When a limit is reached, the document opens anyway, unwatched:
  /// ``watchingError`` says which limit (``PackageError/Code-swift.struct/limitExceeded`` for
  /// watches) and how to raise it — never silently.
  public var isWatching: Bool { monitor != nil }

  /// How long outside removals alone wait for what comes next before the document reacts to
  /// them: the removals of a package being deleted (`rm -rf`: its entries one by one, then the
  /// package) are then part of the deletion, never merged into the document (and reported) first.
  /// A deletion that pauses longer than this between two entries is still seen as removals first.
  static let removalsWait: Duration = .milliseconds(300)

  /// Starts watching the package for outside changes, if it is not watched already.
  /// - Throws: ``PackageError`` with code `limitExceeded` when the system's inotify watch limit is
  ///   reached, `io` when watching cannot start (for example, `EMFILE` at the instance limit), or
  ///   `invalidArgument` if the document is closed or its package was deleted.
  public func startWatching() throws {
    try requireOpen()
    if state.contains(.deleted) {
      throw PackageError(.invalidArgument, "cannot watch a deleted package:", path: path.string)
    }
    watchingWanted = true
    guard monitor == nil else { return }
    executor.requireOnQueue()
    let monitor: PackageMonitor
    do {
      // Its own saves are this document's: a pull or another document's save in this process is news.
      var options = PackageMonitor.Options()
      options.owner = ObjectIdentifier(self)
      options.removalsWait = Self.removalsWait
      options.listsLazily = true  // a change where the model never looked is reported as a whole
      monitor = try PackageMonitor(watching: path, options: options)
    } catch let error as PackageError {
      watchingError = error
      throw error
    }
    watchingError = nil
    self.monitor = monitor
    monitorTask = Task { [weak self] in
      do {
        for try await event in monitor {
          guard let self else { return }
          await self.react(to: event, from: monitor)
        }
      } catch let error as PackageError {
        await self?.watchingStopped(monitor, error)
      } catch {
        await self?.watchingStopped(monitor, PackageError(.io, "watching stopped:", path: monitor.path.string))
      }
    }
  }

  /// Stops watching the package: outside changes are then found only by a save or
  /// ``checkForOutsideChanges()``.
  public func stopWatching() {
    watchingWanted = false
    stopMonitor()
  }

  func stopMonitor() {
    monitor?.stop()
    monitor = nil
    monitorTask?.cancel()
    monitorTask = nil
  }

  /// Starts watching at open or after a save-as; a failure leaves the document unwatched with
  /// ``watchingError`` set.
  func tryToStartWatching() {
    do { try startWatching() } catch {}
  }

  /// Watches the package at its new path (after a save-as), if watching is wanted.
  func restartWatching() {
    stopMonitor()
    if watchingWanted { tryToStartWatching() }
  }

  /// The monitor's sequence ended with `error` (a watch limit reached by a new directory).
  func watchingStopped(_ ended: PackageMonitor, _ error: PackageError) {
    guard monitor === ended else { return }
    monitor = nil
    monitorTask = nil
    watchingError = error
    publish()
  }
}
