import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The versions of one package: previous states kept by saves and conflict versions kept by
/// conflicting saves (NSFileVersion's "other" and "unresolved conflict" versions).
///
/// The store lives **beside** the package, never inside it (a copy or archive of the package
/// must not leak its history), as `.NAME.docpkg-versions/`:
///
/// | entry              | what it is                                                                 |
/// |--------------------|----------------------------------------------------------------------------|
/// | `identity`         | `DEVICE INODE` of the package's root directory, and a pending one during a save |
/// | `objects/ab/cd…`   | content-addressed blobs (files) and tree objects (directories), by SHA-256   |
/// | `versions/ID`      | one record per version: date, origin, resolved, size, root tree              |
/// | `last-id`          | the highest version id given; ids are never given twice, even after a removal |
/// | `recorded`         | the highest id whose record was written: that record missing is damage (`VersionStore+Gaps`) |
/// | `hashes`           | cache: `DEVICE INODE SIZE MTIME HASH` of files already hashed                 |
/// | `verified`         | cache: the same for blobs found whole, by `docpkg check` or as they were written |
/// | `dirs`             | cache: tree objects of directories by device, inode and time, to skip unchanged ones |
/// | `pending/ID`, `pending/ID.old` | a version a save recorded without copying it yet, and the subtree it replaced (see `DeferredKeeping`) |
/// | `lock`             | `flock`ed by whatever writes objects or records (settling, keeping, removing)  |
/// | `tmp/`             | objects and records being written; objects a kill left are removed under `lock` |
///
/// **No write to a package file changes a version.** Every blob is the store's own file, never
/// a hard link of a package file: a `FICLONE` reflink where the file system has them (btrfs, xfs:
/// instant, blocks shared copy-on-write), else a copy (ext4, tmpfs). A content is copied once:
/// a file unchanged between versions is one blob, and a save copies only the contents the store
/// does not hold yet (the hash cache knows them by device, inode, size and time), so ten versions
/// that differ by one file cost one copy of the package plus the changed files. The copy is taken
/// before the save's swap, from the package as it is then, and named by the SHA-256 of the copy's
/// own bytes: there is no window in which a write in place to the package reaches a version. The
/// price is the first save with versions on a file system without reflinks: it copies every file
/// once — unless the save defers its copies (``PackageFile/defersVersionCopies``, what `docpkg`
/// does): then it records a pending version in O(changed), copied by ``settlePendingVersions()``,
/// and a file written in place before its copy exists is named by the version as not kept
/// (``PackageVersion/unkeptPaths``), never kept with other bytes. Reading a version checks each blob's SHA-256 before handing out a
/// byte; ``damagedVersions(thorough:)`` (`docpkg check`) checks the whole store. Blobs that an
/// older release hard-linked are replaced by copies as saves meet them.
///
/// **Finding a package's versions.** The store is named after the package, and records the
/// package root's device and inode (updated, crash-safely, by every save that replaces the
/// root). After `mv Trip.mydoc Voyage.mydoc` in the same directory, opening the store of
/// `Voyage.mydoc` finds no `.Voyage.mydoc.docpkg-versions`, looks for a sibling store whose
/// identity is the package's, and renames it along. A different package later created at the old
/// name does not match its store's identity: the store is not attached to it (a `conflict` error
/// says so) until ``adopt(packageAt:)`` says it really is the same document. A package moved to
/// another directory leaves its store behind; move `.NAME.docpkg-versions` along with it.
///
/// Writes happen under the package's `PackageLock`. A kill at any point leaves the store
/// consistent: objects and records are written under `tmp/` and renamed into place, and a
/// version exists only once its record is renamed in (objects without a record are harmless
/// and removed by the next prune).
public final class VersionStore {
  /// The package whose versions these are.
  public let packagePath: FilePath
  /// The store directory, `.NAME.docpkg-versions` beside the package.
  public let path: FilePath
  /// Whether this instance holds the store's own lock (see ``withStoreLock(_:)``).
  var holdsStoreLock = false
  /// Whether whoever opened this instance holds the package's lock, or this instance took it
  /// (``withPackageLock(_:)``): no save can run meanwhile (a settle then walks the package without
  /// checking for saves; see ``SaveSequence``), and nothing here takes it again.
  var packageLockHeld: Bool
  /// The pending version this instance last failed to settle, and why (see ``versionProblems()``).
  var settleFailure: (id: Int, reason: String)?

  /// Opens the version store of the package at `packagePath`, renaming a moved package's store
  /// along (see the type's discussion). A package without versions has an empty store (the
  /// directory is made by the first version kept). What an interrupted save left beside the package is
  /// recovered first, under the package's lock, as opening the package does (not while a writer holds it).
  /// - Throws: ``PackageError`` with code `noSuchEntry` ("no such package") if there is no package at
  ///   `packagePath` (nor the tree of an interrupted save), `notADirectory` if it is a file, `conflict`
  ///   if the store beside the package belongs to another package (see ``adopt(packageAt:)``), `io` if
  ///   it cannot be read.
  public convenience init(forPackageAt packagePath: FilePath) throws {
    let resolved = PackageLink.resolve(packagePath)
    try Recovery.requirePackage(at: resolved, orAnyLeftover: true)
    // An interrupted save left something beside the package: recovered first, as opening the package does, so
    // that the version a save killed after its swap kept is listed (and readable) from the first look, not
    // only after the next writer recovered it (outsider attack 3 on issue 35, F3). Not while a writer holds the
    // lock (a save at work, or this process's own holder): it completes its own record, and nothing waits.
    if try Recovery.hasLeftovers(resolved) || DeferredKeeping.hasUnrecordedCapture(SiblingNames(of: resolved)),
      let lock = try? PackageLock(forPackageAt: resolved, wait: false)
    {
      defer { withExtendedLifetime(lock) {} }
      _ = try Recovery.recover(packageAt: resolved, keeper: VersionKeeping.self)
    }
    try self.init(packagePath: resolved, lockHeld: false)
  }

  init(packagePath: FilePath, lockHeld: Bool, checkingIdentity: Bool = true) throws {
    self.packagePath = packagePath
    packageLockHeld = lockHeld
    let names = try SiblingNames(of: packagePath)
    path = names.path(names.versions)
    if try !Syscalls.entryExists(path) {
      try Self.findMovedStore(for: packagePath, names: names, lockHeld: lockHeld)
    }
    if checkingIdentity { try checkIdentity() }
  }

  /// Attaches the store beside the package at `packagePath` to that package, whatever package it
  /// was recorded for: use it when a package was replaced by another program (new root inode)
  /// but is the same document. Takes the package's lock.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no package or no store, `io`.
  public static func adopt(packageAt packagePath: FilePath) throws {
    let resolved = PackageLink.resolve(packagePath)
    let lock = try PackageLock(forPackageAt: resolved)
    defer { withExtendedLifetime(lock) {} }
    let names = try SiblingNames(of: resolved)
    let storePath = names.path(names.versions)
    guard try Syscalls.entryExists(storePath) else {
      throw PackageError(.noSuchEntry, "no version store", path: storePath.string)
    }
    guard let identity = RootIdentity.at(resolved) else {
      throw PackageError(.noSuchEntry, "no such package", path: resolved.string)
    }
    try StoreIdentity(identity).write(to: storePath)
  }

  // MARK: Layout

  var objectsPath: FilePath { path.appending("objects") }
  var versionsPath: FilePath { path.appending("versions") }
  var temporaryPath: FilePath { path.appending("tmp") }
  var hashesPath: FilePath { path.appending("hashes") }
  /// The blobs found whole, by status (``HashCache``): by a check, or as they were written.
  var verifiedPath: FilePath { path.appending("verified") }
  var exists: Bool { (try? Syscalls.entryExists(path)) ?? false }

  /// Made from one string: two `appending`s cost more than the `lstat` a check makes of each blob.
  func objectPath(_ hash: String) -> FilePath {
    FilePath("\(objectsPath.string)/\(hash.prefix(2))/\(hash.dropFirst(2))")
  }

  /// Makes the store's directories and, holding the store's lock, removes the objects a killed
  /// writer left in `tmp/` (only objects: a save may be writing `last-id` there meanwhile).
  func prepare() throws {
    try prepareDirectories()
    guard holdsStoreLock else { return }
    for name in (try? StoreFiles.names(in: temporaryPath)) ?? [] where name.hasPrefix(ObjectStaging.namePrefix) {
      try? Syscalls.unlink(temporaryPath.appending(name))
    }
  }

  /// Makes the store's directories.
  func prepareDirectories() throws {
    for directory in [path, objectsPath, versionsPath, temporaryPath, pendingPath] {
      do { try StoreFiles.makeDirectory(directory) } catch {
        throw PackageError.io(error, "cannot create version store directory", path: directory.string)
      }
    }
  }

  // MARK: Listing

  /// The versions, oldest first.
  /// - Throws: ``PackageError`` with code `io` if the store cannot be read.
  /// - Complexity: O(*v*) small file reads for *v* versions.
  public func versions() throws -> [PackageVersion] {
    try records().map(\.version)
  }

  /// The unresolved conflict versions, oldest first.
  ///
  /// Settles nothing: a pending version is a save's previous state, never a conflict (see
  /// ``settlePendingVersions()``), so the store is read as it is (what `docpkg pull` does after every pull).
  /// - Throws: As ``versions()``.
  public func unresolvedConflicts() throws -> [PackageVersion] {
    try listing().records.map(\.version).filter { !$0.isResolved }
  }

  /// The version `id`.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is none.
  public func version(_ id: Int) throws -> PackageVersion { try record(id).version }

  /// The readable records, oldest first (settling first). A record that cannot be read is left
  /// out here and reported by ``versionProblems()``.
  func records() throws -> [VersionRecord] {
    settleIfPending()
    return try listing().records
  }

  /// The record of version `id` (settling first if it is pending).
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no such version, `corrupt` if
  ///   its record is damaged, `io` if it cannot be read or is pending and cannot be settled.
  func record(_ id: Int) throws -> VersionRecord {
    let file = versionsPath.appending(String(id))
    if try !Syscalls.entryExists(file), pendingIDs.contains(id) { settleIfPending() }
    switch readRecord(id) {
    case .record(let record): return record
    case .problem(let problem) where problem.reason == Self.noRecord:
      if let pending = pendingProblem(id) {
        throw PackageError(
          pending.state == .damaged ? .corrupt : .io, "version \(id) is pending in", path: pending.recordPath.string,
          context: pending.state == .damaged ? "but its record is damaged: \(pending.reason)" : "and \(pending.reason)")
      }
      throw PackageError(.noSuchEntry, "no version \(id) in", path: path.string)
    case .problem(let problem):
      throw PackageError(.corrupt, "damaged version record", path: file.string, context: "(\(problem.reason))")
    }
  }

  /// Rewrites a record (to mark it resolved)  /// Rewrites a record (to mark it resolved), atomically. Under the lock.
  func write(_ record: VersionRecord) throws {
    try prepare()
    try StoreFiles.writeAtomically(
      record.encoded(), to: versionsPath.appending(String(record.version.id)), temporary: temporaryPath)
  }
}
