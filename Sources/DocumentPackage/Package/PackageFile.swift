import SystemPackage

/// The package on disk: a lazily loaded ``PackageNode`` tree plus the lock, recovery, atomic,
/// incremental, crash-proof saving and version keeping. The lower layer of ``Document``, which is
/// what an app uses (undo, autosave, a state to observe, file I/O off the cooperative pool); the
/// CLI and low-level users use this synchronous type directly.
///
///     let package = try PackageFile(at: "/home/ann/Trip.mydoc")
///     try package.root.setFile(at: "Pages/p0001/text.txt", contents: Data(text.utf8))
///     try package.save()
///
/// A save builds the new state beside the package and swaps it in with one atomic rename, so
/// that the package on disk is always exactly the old state or exactly the new one, even if the
/// process is killed or the machine loses power at any point (see ``save(options:)``). Unchanged
/// files are hard-linked, never copied, and a save rebuilds only the smallest part of the tree
/// that holds every change: changing one file of 100,000 writes one file.
///
/// Writers are serialized by a `PackageLock` beside the package, taken only to write: for each
/// save, for recovery when an interrupted save left something beside the package, and with
/// ``Options/holdLock`` from open to ``close()``, so that no other writer can change the package
/// between load and save. Opening to read creates nothing, and a clean exit leaves no lock file.
/// If another program changed the package after it was loaded, ``save(options:)`` does not
/// overwrite that: it throws a `conflict` error, and ``outsideChanges()`` says what changed.
///
/// Not thread-safe: confine a package file to one task or actor, like its nodes.
public final class PackageFile {
  /// How a package file is opened.
  public struct Options: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int
    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Hold the package's lock from open until ``PackageFile/close()`` (or the value goes
    /// away), instead of only during recovery and each save.
    public static let holdLock = Options(rawValue: 1 << 0)
    /// Create an empty package if there is none at the path (decided under the lock, so two
    /// processes opening the same new package with this option both get the one package).
    public static let create = Options(rawValue: 1 << 1)
  }

  /// How a save treats changes another program made on disk since load.
  public struct SaveOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int
    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Save even though the package changed on disk since it was loaded: the model wins for
    /// every entry it loaded (what it never loaded is carried over as it is on disk now).
    public static let overwritingOutsideChanges = SaveOptions(rawValue: 1 << 0)
  }

  /// The package on disk (symbolic links to it resolved when it was opened).
  public internal(set) var path: FilePath
  /// The package's contents, loaded lazily. Edit it, then ``save(options:)``.
  public internal(set) var root: PackageNode
  /// What recovery did when the package was opened; empty when no save had been interrupted.
  public private(set) var recoveryActions: [RecoveryAction] = []

  /// Called during each in-place save once the new state is built and durable, just before it
  /// replaces the package, with the package's path: the package there is still exactly the
  /// previous state (and the lock is held), so a version store can keep it (our saves never
  /// change a file in place, but other programs may: keep clones or copies, not hard links).
  /// Throwing cancels the save; the package
  /// stays as it was.
  public var willReplacePreviousState: ((FilePath) throws -> Void)?

  /// For tests: called during each in-place save once the new state is built and durable, just
  /// before it checks that nothing it rebuilds changed on disk meanwhile (``ChangedWhileSaving``),
  /// which comes before ``willReplacePreviousState``.
  package var willCheckBeforeCommit: (() -> Void)?

  /// For tests: called during each in-place save after its last check (the version store told,
  /// the root held: ``LoadedRootHold``), just before the rename that puts its new state in place —
  /// the moment where another program's change is met only by the check after the swap.
  package var willSwapIn: (() -> Void)?

  /// The root the last in-place save left, held open by the save from before its swap: the package's, wherever
  /// another program renamed or moved it since (a ``Document`` holds it to follow its package; by the path, a
  /// rename as the save finished found nothing there, or another package).
  package internal(set) var rootLeftBySave: HeldDirectory?

  /// For tests: called at the end of each in-place save, before whoever saved (a ``Document``) looks at the package
  /// again.
  package var didSaveInPlace: (() -> Void)?

  /// For tests: called during each in-place save once its swap is complete, just before the model is pointed at
  /// what it saved — the moment where a package renamed by another program is followed by the save itself.
  package var didSwapIn: (() -> Void)?

  /// Which previous states saves keep in the package's ``VersionStore`` (default
  /// ``VersionPolicy/default``: the last 10). Set it before saving.
  public var versionPolicy: VersionPolicy = .default

  /// Who this package file saves for (a ``Document``), told to the monitors with what its saves put
  /// in place: a document's monitor takes only that document's saves for its own (``OwnSaves``).
  package var saveOwner: ObjectIdentifier?

  /// Whether saves keep the previous state as a *pending* version, copying its contents into the
  /// ``VersionStore`` later (``VersionStore/settlePendingVersions()``), so that a save costs
  /// O(changed) however big the package (default `false`: each save copies before its swap, and
  /// there is no window). A ``Document`` sets it and settles for the app, in the background.
  ///
  /// Until the pending version is settled, a file written in place (and then not given its old
  /// modification time back) is not kept by it: the version names it in
  /// ``PackageVersion/unkeptPaths``, never keeps other bytes, and `docpkg check` reports it. A
  /// hard link made meanwhile (a `cp -al` backup) does not count as a change. So the window should
  /// be short: `docpkg` sets this and starts `docpkg versions settle PACKAGE` as a detached
  /// process right after the command; a ``Document`` settles in its own process right after each
  /// save. **An app that sets it on a `PackageFile` of its own must settle too**: after each save
  /// (or a burst of saves), call `try versionStore().settlePendingVersions()` on a thread that may
  /// block — its own thread or a dispatch queue, not a task on Swift's cooperative pool, since it
  /// copies every file the store does not hold yet. It takes only the store's lock, so saves go
  /// on meanwhile; a pending version left unsettled (the app quit) is settled by the next reading
  /// of the store, by any process.
  public var defersVersionCopies = false

  let options: Options
  var lock: PackageLock?
  /// What the last ``saveMerging()`` took in: ``outsideChanges()`` as it looked under the lock in the try
  /// that saved (empty when nothing was merged). A `Document` names them to its app.
  var mergedOutsideChanges: [OutsideEntryChange] = []
  /// Set once `RENAME_EXCHANGE` was refused here: later saves go by journal (``SaveJournal``) at once.
  var exchangeUnsupported = false
  /// Whether opening made the package (``Options/create``), and whether a version store was beside it then.
  private(set) var created = false
  private var storeWasThere = false

  /// Opens the package at `path` for editing, first settling any interrupted save (see
  /// ``recover(at:)``). Nothing below the root is read until asked for.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no package, `notADirectory`
  ///   if what is there is not a directory, `invalidArgument` if it lies inside another package
  ///   (see `PackageLock`), `io` if it or its lock file cannot be opened.
  public init(at path: FilePath, options: Options = []) throws {
    let resolved = PackageLink.resolve(path)
    try Recovery.requirePackage(at: resolved, orNothing: options.contains(.create))
    // Only writers lock: take it now to hold it or to create, else only if a save was interrupted.
    let lock =
      try options.contains(.holdLock) || options.contains(.create) || Recovery.hasLeftovers(resolved)
      ? PackageLock(forPackageAt: resolved) : nil
    self.path = resolved
    self.options = options
    if let lock { recoveryActions = try Self.recover(resolved, locked: lock) }
    if options.contains(.create), try Recovery.statusIfPresent(resolved) == nil {
      let names = try SiblingNames(of: resolved)
      storeWasThere = try Recovery.statusIfPresent(names.path(names.versions)) != nil
      var saver = try Saver(target: resolved, root: try PackageNode(directoryWithChildren: [:]))
      try saver.saveWhole(rebasing: false)
      created = true
    }
    root = try PackageNode(contentsOf: resolved)
    if options.contains(.holdLock) { self.lock = lock }
  }

  /// Creates a new package at `path` holding `root` (an empty directory by default) and opens it.
  /// - Throws: ``PackageError`` with code `nameTaken` if something is at `path` already, or as ``save(options:)``.
  public static func create(at path: FilePath, root: PackageNode? = nil, options: Options = []) throws
    -> PackageFile
  {
    let lock = try PackageLock(forPackageAt: path)
    _ = try recover(path, locked: lock)
    if try Recovery.statusIfPresent(path) != nil {
      throw PackageError(.nameTaken, "cannot create package: something is already at", path: path.string)
    }
    let root = try root ?? PackageNode(directoryWithChildren: [:])
    var saver = try Saver(target: path, root: root)
    try saver.saveWhole(rebasing: true)
    return try PackageFile(root: root, path: path, lock: lock, options: options)
  }

  private init(root: PackageNode, path: FilePath, lock: PackageLock, options: Options) throws {
    self.root = root
    self.path = path
    self.options = options
    if options.contains(.holdLock) { self.lock = lock }
  }

  /// Settles an interrupted save of the package at `path`: removes leftover temporary trees and,
  /// if the package itself is missing, puts back the complete saved tree or the previous package.
  /// Afterwards the package is exactly its old or its new state. Waits for the package's lock.
  /// - Returns: What was done; empty if nothing had been interrupted.
  /// - Throws: ``PackageError`` with code `io` naming the leftover that could not be settled.
  public static func recover(at path: FilePath) throws -> [RecoveryAction] {
    let resolved = PackageLink.resolve(path)
    try Recovery.requirePackage(at: resolved, orAnyLeftover: true)
    return try recover(resolved, locked: PackageLock(forPackageAt: resolved))
  }

  /// Recovers the package at `path`, whose lock the caller holds (see ``Recovery``).
  static func recover(_ path: FilePath, locked: PackageLock) throws -> [RecoveryAction] {
    try Recovery.recover(packageAt: path, keeper: VersionKeeping.self)
  }

  /// What another program changed in the package since this package file loaded it (or last saved
  /// it), among the parts the model looked at. Empty when a save would overwrite nothing.
  /// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes.
  public func outsideChanges() -> [OutsideEntryChange] {
    guard let location = root.origin?.location else { return [] }
    return OutsideChangeDetector.changes(in: root, location: location)
  }

  /// After a refused first save (a name refused, say): removes the package this package file made
  /// when it was opened (``Options/create``), if it is still an empty folder, and the version store
  /// that save began, if there was none before and it holds no version, so that the refused command
  /// leaves nothing behind. Best effort, under the package's lock.
  package func removeIfCreatedAndEmpty() {
    guard created, let lock = try? lock ?? PackageLock(forPackageAt: path), let names = try? SiblingNames(of: path),
      let parentFD = try? Syscalls.openFile(names.parent, [.readOnly, .directory])
    else { return }
    defer {
      Syscalls.closeFile(parentFD)
      withExtendedLifetime(lock) {}
    }
    guard (try? Syscalls.unlink(in: parentFD, names.package, directory: true)) != nil else { return }
    created = false
    guard !storeWasThere, let store = try? VersionStore(packagePath: path, lockHeld: true, checkingIdentity: false),
      store.exists, (try? store.records())?.isEmpty != false, !store.hasPendingVersions
    else { return }
    try? TreeRemoval.remove(names.versions, in: parentFD)
  }

  /// Drops the lock held with ``Options/holdLock``. The package file can still be read; a later save
  /// takes the lock again for its duration.
  public func close() {
    lock?.unlock()
    lock = nil
  }
}
