import Dispatch
import SystemPackage

/// Settles the pending versions that saves with deferred copies leave (``PackageFile/defersVersionCopies``,
/// ``DeferredKeeping``), so that no program has to remember to.
///
/// Two ways, one list of the packages saved with deferred copies:
/// - a process that ends right after its saves (`docpkg put`, `rm`, `versions restore` and
///   `versions resolve`) starts `docpkg versions settle PACKAGE` as a detached process for each
///   (``startDetached(executable:)``), so that the command returns at once;
/// - a process that lives on (an app: a ``Document`` calls ``settleInBackground(packageAt:)``
///   after each save) settles in-process, on a serial queue of its own: never on Swift's
///   cooperative pool (settling copies every file the store does not hold yet) nor on the
///   document's queue (its next edit or save does not wait). ``waitForBackgroundSettles()`` waits
///   for what was queued (a document's close).
///
/// Best effort either way: a settle that cannot start or fails leaves the pending version for the
/// next reading of the store, by any process. With `DOCPKG_NO_BACKGROUND_SETTLE` in the environment
/// nothing is settled in the background (tests and benchmarks that settle on their own terms).
package final class PendingSettler: @unchecked Sendable {
  /// The process's settler.
  package static let shared = PendingSettler()

  private let lock = SystemLock()
  private var saved: [FilePath] = []
  private let queue = DispatchQueue(label: "DocumentPackage.PendingSettler")

  /// Whether the environment turns background settling off.
  private static var isTurnedOff: Bool { Syscalls.environment("DOCPKG_NO_BACKGROUND_SETTLE") != nil }

  /// Notes a package whose saves defer their version copies, for ``startDetached(executable:)``
  /// (``PackageFile/deferVersionCopies(settledBy:)``).
  package func note(_ package: FilePath) {
    lock.withLock { saved.append(package) }
  }

  /// Starts `executable versions settle PACKAGE` detached for each package noted by
  /// ``note(_:)`` that has pending versions (best effort).
  /// - Parameter executable: A `docpkg` binary (the running one, for `docpkg` itself).
  package func startDetached(executable: FilePath) {
    guard !Self.isTurnedOff else { return }
    for package in lock.withLock({ saved }) {
      guard let store = try? VersionStore(forPackageAt: package), store.hasPendingVersions else { continue }
      try? Syscalls.spawnDetached(executable, ["versions", "settle", package.string])
    }
  }

  /// Settles the pending versions of the package at `path` in this process, on the settler's
  /// queue (best effort; see the type's discussion).
  package func settleInBackground(packageAt path: FilePath) {
    guard !Self.isTurnedOff else { return }
    queue.async {
      _ = try? VersionStore(forPackageAt: path).settlePendingVersions()
    }
  }

  /// Returns once every settle queued by ``settleInBackground(packageAt:)`` before the call is done.
  package func waitForBackgroundSettles() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      queue.async { done.resume() }
    }
  }
}
