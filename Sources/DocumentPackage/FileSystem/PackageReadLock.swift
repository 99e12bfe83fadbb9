import SystemPackage

/// A reader's side of reader–writer coordination (`NSFileCoordinator`'s role): while it is held,
/// no save by any process puts a new state in place, so a lazily read package shows exactly one
/// saved state — never entries of two.
///
///     let lock = try PackageReadLock(forPackageAt: "/home/ann/Trip.mydoc")
///     let root = try PackageNode(contentsOf: "/home/ann/Trip.mydoc")
///     // ... list and read as much as needed: one saved state ...
///     lock.unlock()
///
/// ``PackageNode/reading(contentsOf:options:_:)`` does this around a closure; `docpkg inspect`, `cat`,
/// `diff` and `pack` hold it for their whole run.
///
/// ## Why a lock, and which
/// A save is atomic (``PackageFile/save(options:)`` builds the new state beside the package and
/// exchanges it in with one `renameat2(RENAME_EXCHANGE)`), but a lazy reader reads in many steps:
/// it lists a directory now and opens a file later, by path. Measured before this lock existed: one
/// process alternating two states with `docpkg versions restore` while another ran `docpkg pack`
/// in a loop gave 7 mixed archives of 102; a library reader reading a whole package in a loop while
/// another process saved (`read-write-stress`, files in three directories changed by each save) mixed
/// two saves in 35 of 466 reads and failed 10 more (a file vanished under it). With the lock: 0 of
/// 511. The three designs weighed:
/// - **A pinned snapshot** (hold the root's descriptor, read relative to it). It does not hold:
///   a save exchanges only the smallest changed subtree, a directory *inside* the pinned root, so
///   a reader inside the root sees the new subtree; and the replaced tree is removed right after
///   the exchange, so the files a pinned reader still needs vanish under it. Pinning would need
///   saves to keep old trees alive for unknown readers.
/// - **A generation check** (read, verify nothing was exchanged, retry). Nothing on disk counts
///   exchanges: inodes of removed trees are reused, and directory times move in coarse clock
///   ticks, so "nothing changed" cannot be proved, only guessed. A reader that streams (`cat`,
///   `pack` to a pipe) cannot take back what it wrote, and a reader under constant saves retries forever.
/// - **Shared/exclusive locks** — chosen. Exact, and cheap: a reader pays two `open`s and two
///   lock calls; a writer is held up only by readers that are running when it is ready to swap.
///
/// ## The protocol
/// Two locks, neither of them a file created for a reader:
/// - **The gate**: a `flock` on the package's root directory itself — shared by each reader for its
///   whole read, exclusive by a save only around its swap (exchange and fsyncs; not while it builds
///   the new tree, and not while it removes the old one). Nothing is created, so reading works in a
///   read-only folder, and a reader never writes. A save that exchanges the root leaves the old
///   root (still locked by nobody but that save) at a temporary name: a reader that locked it
///   checks, after locking, that the path still names the directory it locked, and starts again if not.
/// - **The turnstile**, so that readers in a loop cannot starve a writer (`flock` lets a shared
///   lock in while an exclusive one waits): a one-byte open-file-description lock on the writer's
///   lock file `.NAME.docpkg-lock`, which exists whenever a writer might swap. A save holds it
///   (write) from before it waits for the gate until its swap is done; a reader passes it (read)
///   just before taking the gate, so new readers queue behind a waiting save. It only orders: a
///   reader that finds no lock file or cannot open it goes straight to the gate, and stays correct.
///
/// ## What each side can count on
/// - **A reader**, from ``init(forPackageAt:waitLimit:)`` to ``unlock()``: every directory it lists
///   and every file it opens under the package's path belong to one saved state (ours or another
///   process's `PackageFile`, `Document` or `docpkg`; a program that ignores the lock, such as an
///   editor, is not held back). It waits only while a save is being swapped in (milliseconds) or,
///   at the turnstile, while a save waits for earlier readers (at most the writer's limit): at most
///   `waitLimit` (default 30 s) in all, after which it throws a `locked` error naming the package —
///   which takes a writer stopped in the middle of its swap (a writer that crashes drops its locks).
/// - **A writer**: while it swaps, no coordinated reader is inside the package. It waits for the
///   readers already reading for at most ``writerWaitLimit`` (default 10 s), then gives up with a
///   `locked` error ("being read by another process"), leaving the package as it was; new readers
///   wait for it meanwhile. It is never held up by a reader for longer than that, whatever the reader does.
/// - **Nobody deadlocks**: no wait is unbounded (each lock is polled against a deadline) and the
///   order is always turnstile, then gate. A save inside a read of the same package in the same
///   thread would wait for itself: it fails after ``writerWaitLimit``.
///
/// The writer's slowdown with two readers reading the whole package in a loop is a benchmark row
/// (`Benchmarks/rows/coordination.py`): measured 1.74× (release build, 186 files: 11.1 saves/s alone,
/// 6.3 with the readers, which read 6,973 times, none torn; two cores at a load of 13, so much of it
/// is the readers' CPU rather than waiting for them). Reads of the versions kept beside the package (`PACKAGE@ID`)
/// and of archives are not covered: a version is never changed in place, and an archive is
/// replaced by one `rename`.
public final class PackageReadLock {
  /// The package, as given.
  public let packagePath: FilePath
  /// The root directory, locked shared; -1 when there was nothing to lock (see ``isHeld``).
  private var fd: CInt = -1

  /// Whether a gate is held: false when `packagePath` is not a directory or is missing (nothing
  /// there can be saved while it is read, and reading it fails or reads the one file).
  public var isHeld: Bool { fd >= 0 }

  /// Takes the read lock of the package at `packagePath`, waiting while a save is being put in
  /// place (see the type's documentation for how long).
  /// - Parameters:
  ///   - packagePath: The package (a symbolic link to it is followed).
  ///   - waitLimit: The longest wait before giving up; 30 s by default.
  /// - Throws: ``PackageError`` with code `locked` when a save held the package for longer than
  ///   `waitLimit`, or `io` when the root directory cannot be locked for another reason.
  public init(forPackageAt packagePath: FilePath, waitLimit: Duration = .seconds(30)) throws {
    self.packagePath = packagePath
    let resolved = PackageLink.resolve(packagePath)
    let names = try? SiblingNames(of: resolved)
    let wait = LockWait(limit: waitLimit)
    while true {
      let turnstile = names.flatMap { Self.passTurnstile($0, wait) }
      defer { if let turnstile { Syscalls.closeFile(turnstile) } }
      let root: CInt
      do { root = try Syscalls.openDirectory(resolved) } catch {
        if error == .noSuchFileOrDirectory, let names, Self.isBetweenTwoRenames(names), !wait.expired {
          Syscalls.pause(microseconds: 1000)  // the fallback save moved it aside for a moment
          continue
        }
        return  // nothing to lock: opening the package reports what is wrong
      }
      let taken: Bool
      do { taken = try wait.poll { () throws(Errno) in try Syscalls.lockSharedNow(root) } } catch {
        Syscalls.closeFile(root)
        throw PackageError.io(error, "cannot lock package for reading:", path: packagePath)
      }
      guard taken else {
        Syscalls.closeFile(root)
        throw PackageError(
          .locked, "a save by another process has held the package for over \(wait.described):",
          path: packagePath.string)
      }
      if Self.pathStillNames(root, resolved) {
        fd = root
        return
      }
      Syscalls.closeFile(root)  // a save exchanged the root meanwhile: lock the new one
    }
  }

  /// Waits (until `wait`'s deadline) while a save holds the turnstile, and returns the lock file's
  /// descriptor, holding a read lock that lets no save in until it is closed; nil when there is no
  /// lock file, or it cannot be opened or locked (the turnstile only orders: see the type's documentation).
  private static func passTurnstile(_ names: SiblingNames, _ wait: LockWait) -> CInt? {
    guard let fd = try? Syscalls.openFile(names.path(names.lock), [.readOnly, .noFollow]) else { return nil }
    let taken = (try? wait.poll { () throws(Errno) in try Syscalls.lockByteNow(fd, .read) }) ?? false
    if !taken {
      Syscalls.closeFile(fd)
      return nil
    }
    return fd
  }

  /// Whether a save without `RENAME_EXCHANGE` is between moving the package aside and renaming
  /// the new one in (see ``Saver``): the package is missing for a moment.
  private static func isBetweenTwoRenames(_ names: SiblingNames) -> Bool {
    [names.ready, names.sideline].contains { (try? Syscalls.statusNoFollow(names.path($0))) != nil }
  }

  /// Whether `path` (followed) still names the directory open as `fd`.
  private static func pathStillNames(_ fd: CInt, _ path: FilePath) -> Bool {
    guard let held = try? Syscalls.status(of: fd), let named = try? Syscalls.statusFollowing(path) else {
      return false
    }
    return held.device == named.device && held.inode == named.inode
  }

  /// How long a save waits for the readers already reading the package before it gives up with
  /// a `locked` error, leaving the package as it was: 10 s unless set. Process-wide; it bounds how
  /// long any reader can hold up this process's saves.
  public static var writerWaitLimit: Duration {
    get { limitLock.withLock { storedWriterWaitLimit } }
    set { limitLock.withLock { storedWriterWaitLimit = newValue } }
  }
  private static let limitLock = SystemLock()
  nonisolated(unsafe) private static var storedWriterWaitLimit: Duration = .seconds(10)

  /// Drops the lock now rather than when the value goes away. Saves can then swap again.
  public func unlock() {
    guard fd >= 0 else { return }
    Syscalls.closeFile(fd)  // closing the only descriptor drops the flock
    fd = -1
  }

  deinit { unlock() }
}
