import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document package opened for editing — this library's `UIDocument`, the one document type an
/// app uses: open, edit with undo, save and autosave, versions, conflicts and their resolution,
/// save-as and save-to, revert, close, and a state and change stream to observe.
///
///     let document = try await Document(contentsOf: "/home/ann/Notes.mydoc")
///     try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("Hello".utf8)) }
///     await document.undoMenuItemTitle        // "Undo Edit"
///     try await document.undo()
///     try await document.save()               // atomic and incremental
///     try await document.close()
///
/// The package is opened lazily (nothing below the root is read until asked for). The model and
/// the undo stack live inside the actor: reach them with ``edit(named:registeringUndo:_:)``, ``read(_:)`` and
/// ``withUndoStack(_:)``, whose closures run on the actor, so no data race is possible under
/// Swift 6. Every change made through ``edit(named:registeringUndo:_:)`` can be undone (see ``PackageEditor``).
///
/// Saving goes through ``PackageFile`` (the package on disk): the package on disk is always
/// exactly the old or the new state, unchanged files are hard-linked, previous states are kept as
/// versions per ``versionPolicy``, and a package changed on disk by another program is never
/// overwritten silently: ``save(overwritingOutsideChanges:)`` fails with
/// ``DocumentState/inConflict``, and ``saveMerging()`` merges with the other writer instead (or
/// keeps this side as a conflict version, settled with ``resolveConflicts(keeping:removing:)``).
///
/// The actor runs on an executor of its own (a serial dispatch queue), so the blocking file I/O of
/// open, save, revert, restore and merge never occupies a thread of Swift's cooperative pool: an
/// app's other tasks keep running during a long save. Autosave is off by default; set
/// ``autosaveDelay`` to save that long after the last change (never inside an open undo group),
/// timed by the `clock` given at open. Observe ``updates()`` to keep menus and the title bar
/// current, ``stateUpdates()`` for the state alone.
///
/// **Outside changes.** A document watches its package (a ``PackageMonitor``) unless opened with
/// ``Options/unwatched``, and reacts to what another program does to it, as `UIDocument` does
/// with `NSFilePresenter`: with no unsaved changes it shows the new state (``OutsideChange/Reaction-swift.enum/reloaded``);
/// with unsaved changes it merges them onto the new state (``OutsideChange/Reaction-swift.enum/merged(paths:)``),
/// or, when both sides changed the same entries, keeps its side as a conflict version and becomes
/// ``DocumentState/inConflict``; it follows the package when it is moved (``path`` updates) and
/// becomes ``DocumentState/deleted`` when it is deleted. Each reaction is published in
/// ``updates()`` (``DocumentUpdate/outsideChange``). See ``isWatching`` for the cost.
///
/// Actors cannot be subclassed: apps compose a `Document` into their own type (see
/// `Examples/NotesDocument`).
public actor Document {
  /// Where the package is on disk; a ``save(to:)`` ("save as") moves the document to a new path.
  public internal(set) var path: FilePath
  /// What the document can do now.
  public internal(set) var state: DocumentState = .normal {
    didSet { stateObservers.publish(state) }
  }
  /// Why the last save, or the last reaction to an outside change (``OutsideChange/Reaction-swift.enum/failed(message:)``),
  /// failed (or the open, for a read-only document). `nil` after a successful save, and after a reaction that
  /// succeeded, unless the state still says a save failed (``DocumentState/savingError``, ``DocumentState/inConflict``).
  public internal(set) var lastError: PackageError?

  /// Saves this long after the last change, merging with another program's changes as
  /// ``saveMerging()`` does (both sides changed an entry: the conflict is kept as a version and the
  /// state gains ``DocumentState/inConflict``); `nil` (the default) turns autosave off.
  public var autosaveDelay: Duration? {
    didSet { restartAutosaveTimer() }
  }

  /// How a document is opened.
  public struct Options: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int
    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Open for reading only: ``DocumentState/editingDisabled`` from the start, no lock taken.
    public static let readOnly = Options(rawValue: 1 << 0)
    /// Create an empty package if there is none at the path.
    public static let create = Options(rawValue: 1 << 1)
    /// Make a new package, failing if something is at the path (``Document/create(at:clock:)``).
    static let createNew = Options(rawValue: 1 << 8)
    /// Do not watch the package for outside changes (see ``Document/isWatching``): another
    /// program's change is then found only by a save (which refuses to overwrite it) or
    /// ``Document/checkForOutsideChanges()``. ``Document/startWatching()`` turns watching on later.
    public static let unwatched = Options(rawValue: 1 << 2)
  }

  /// The package on disk; `nil` for a document opened read-only.
  var package: PackageFile?
  /// The model and its undo registration.
  var editor: PackageEditor
  let options: Options
  /// Times autosave.
  let clock: any Clock<Duration>
  var autosaveTask: Task<Void, Never>?
  var stateObservers = Observers<DocumentState>(buffered: 8)
  var updateObservers = Observers<DocumentUpdate>(buffered: 16)
  /// The policy given to every save (see ``versionPolicy``).
  var policy: VersionPolicy = .default
  /// Runs the actor's jobs off the cooperative thread pool.
  nonisolated let executor: DocumentExecutor
  /// Watches the package (see ``isWatching``); `nil` when not watching.
  var monitor: PackageMonitor?
  /// Reads ``monitor``'s events and hands them to the actor.
  var monitorTask: Task<Void, Never>?
  /// Why watching could not start or stopped; `nil` while watching or when turned off.
  public internal(set) var watchingError: PackageError?
  /// The last outside change the document reacted to (see ``OutsideChange``); `nil` if none yet.
  public internal(set) var lastOutsideChange: OutsideChange?
  /// How many outside changes the document reacted to.
  var outsideChangeCount = 0
  /// What the document reported of changes no event named (`Document+OwnSaveGap`), by path: the
  /// state reported (nil: nothing there). The next event, if it names such a change at that state,
  /// does not report it again; then it is forgotten.
  var reportedWithoutEvent: [String: PackageMonitor.SeenEntry?] = [:]
  /// An outside change that came while an undo group was open, applied when it closes.
  var pendingOutsideEvent: PackageMonitor.Event?
  /// An outside change met while the package was disappearing from ``path`` (deleted or moved
  /// away during the reaction): it is reported with the monitor's next event, which says which.
  var eventBeforeVanishing: PackageMonitor.Event?
  /// The model before the last reactions in a row that only applied outside removals, while
  /// nothing has changed in the document since: brought back if the package is deleted next (see
  /// ``react(to:)``).
  var modelBeforeRemovals: ModelBeforeRemovals?
  /// The conflict version that keeps this document's side, while ``DocumentState/inConflict`` (see ``KeptConflict``).
  var keptConflict: KeptConflict?
  /// Whether the app wants the package watched (on unless ``Options/unwatched`` or ``stopWatching()``).
  var watchingWanted = false
  /// The package's root as the document loaded or last saved it, held open to follow it when it
  /// moves (`Document+MovedPackage`).
  var heldRoot: (directory: HeldDirectory, identity: RootIdentity)?

  /// The executor the actor runs on: a serial queue of its own (see the type's discussion).
  public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  /// Opens the package at `path`, first settling any interrupted save. Nothing below the root is
  /// read until asked for; the opening itself runs on the document's own queue.
  ///
  /// If the package's location is not writable (or `options` has ``Options/readOnly``), the
  /// document opens with ``DocumentState/editingDisabled``: it can be read but not edited or saved.
  /// Opening takes no lock and creates nothing beside the package (unless `options` has
  /// ``Options/create`` or an interrupted save must be settled).
  /// - Parameters:
  ///   - path: The package.
  ///   - options: Read-only, or create the package if missing.
  ///   - clock: Times ``autosaveDelay``: `ContinuousClock` by default; tests pass a clock they advance.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no package (and `options` lacks
  ///   ``Options/create``), `io` if it cannot be opened.
  public init(contentsOf path: FilePath, options: Options = [], clock: any Clock<Duration> = ContinuousClock())
    async throws
  {
    self.path = path
    self.options = options
    self.clock = clock
    executor = DocumentExecutor(label: "DocumentPackage.Document \(path.lastComponent?.string ?? "")")
    editor = PackageEditor(root: try PackageNode(directoryWithChildren: [:]))  // replaced by open()
    try open()  // isolated from here on: runs on `executor`
    if !options.contains(.unwatched) { tryToStartWatching() }
  }

  deinit {
    monitor?.stop()
    monitorTask?.cancel()
  }

  /// Opens the package (see the initializer), on the document's queue.
  private func open() throws {
    executor.requireOnQueue()
    if options.contains(.createNew) { _ = try PackageFile.create(at: path) }
    let parent = path.removingLastComponent()
    // A save builds the new state beside the package and renames it over the old one: both the
    // folder holding the package and the package itself (whose `..` entry moves) must be writable.
    let isDirectory = (try? Syscalls.statusFollowing(path))?.kind == .directory
    let writable =
      !options.contains(.readOnly)
      && Syscalls.isWritableDirectory(parent.isEmpty ? FilePath(".") : parent)
      && (!isDirectory || Syscalls.isWritableDirectory(path))
    if writable {
      let package = try openPackageFile(options: options.contains(.create) ? [.create] : [])
      self.package = package
      editor = PackageEditor(root: package.root.verifyingLoads())
      holdRoot()
    } else {
      package = nil
      editor = PackageEditor(root: try PackageNode(contentsOf: path).verifyingLoads())
      state = .editingDisabled
    }
  }

  /// Creates a new, empty package at `path` and opens it.
  /// - Parameters:
  ///   - path: Where to make the package; nothing may be there.
  ///   - clock: As in ``init(contentsOf:options:clock:)``.
  /// - Returns: The new document, clean and editable.
  /// - Throws: ``PackageError`` with code `nameTaken` if something is at `path` already, or `io`.
  public static func create(at path: FilePath, clock: any Clock<Duration> = ContinuousClock()) async throws
    -> Document
  {
    try await Document(contentsOf: path, options: .createNew, clock: clock)
  }

  func requireOpen() throws {
    if state.contains(.closed) { throw PackageError(.invalidArgument, "document is closed:", path: path.string) }
  }

  func requireEditable() throws {
    try requireOpen()
    if state.contains(.editingDisabled) {
      throw PackageError(
        .invalidArgument, "document is read-only (its location is not writable or it was opened read-only):",
        path: path.string)
    }
  }

  /// A stream of the document's state, starting with the current one, ending when it closes.
  public func stateUpdates() -> AsyncStream<DocumentState> {
    stateObservers.subscribe(current: state, closed: state.contains(.closed)) { [weak self] id in
      Task { await self?.removeStateObserver(id) }
    }
  }

  func removeStateObserver(_ id: Int) { stateObservers.remove(id) }
}
