import SystemPackage

/// A writer's side of reader–writer coordination: held by ``Saver`` around a swap (the exchange
/// and the fsyncs that make it final), so that no ``PackageReadLock`` holder is reading the
/// package while a new state is put in place. See ``PackageReadLock`` for the protocol and what
/// each side can count on.
///
/// Taking it: close the turnstile (a write lock on byte 0 of the writer's lock file, which new
/// readers must pass), then take the gate (an exclusive `flock` on the package's root directory)
/// once the readers already inside have left — each polled until ``PackageReadLock/writerWaitLimit``.
/// ``end()`` opens both again; call it as soon as the swap is final, before removing the old tree.
final class ReaderExclusion {
  private var turnstile: CInt = -1
  private var gate: CInt = -1

  /// Waits until no coordinated reader is inside the package at `names`' path, then keeps new
  /// ones out until ``end()``.
  /// - Throws: ``PackageError`` with code `locked` when readers still read after the limit.
  init(_ names: SiblingNames, limit: Duration = PackageReadLock.writerWaitLimit) throws {
    let wait = LockWait(limit: limit)
    let package = names.path(names.package)
    func busy() -> PackageError {
      PackageError(
        .locked, "package is being read by another process (waited \(wait.described)), not saved:",
        path: package.string)
    }
    if let fd = try? Syscalls.openFile(names.path(names.lock), [.readWrite, .noFollow]) {
      // nil: no such locks here (ENOSYS) or refused; readers then go straight to the gate, which is enough.
      switch try? wait.poll({ () throws(Errno) in try Syscalls.lockByteNow(fd, .write) }) {
      case true?: turnstile = fd
      case false?:
        Syscalls.closeFile(fd)
        throw busy()
      case nil: Syscalls.closeFile(fd)
      }
    }
    guard let root = try? Syscalls.openFile(package, [.readOnly, .directory, .noFollow]) else {
      return  // no package there yet (the first save), or not a directory: no reader can be inside
    }
    gate = root
    let taken: Bool
    do { taken = try wait.poll { () throws(Errno) in try Syscalls.lockExclusiveNow(root) } } catch {
      end()
      throw PackageError.io(error, "cannot lock package against readers:", path: package)
    }
    if !taken {
      end()
      throw busy()
    }
  }

  /// Lets readers in again. Idempotent.
  func end() {
    if gate >= 0 { Syscalls.closeFile(gate) }
    if turnstile >= 0 { Syscalls.closeFile(turnstile) }
    gate = -1
    turnstile = -1
  }

  deinit { end() }
}
