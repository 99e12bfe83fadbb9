import DocumentPackage

/// Stops a running ``ArchivePacker/pack(_:to:options:cancellation:progress:)`` or
/// ``ArchiveUnpacker/unpack(_:into:options:cancellation:progress:)`` from another thread.
///
///     let cancellation = ArchiveCancellation()
///     // on another thread, when the user gives up:
///     cancellation.cancel()
///
/// The operation notices between entries (a pack also while it plans the archive, before writing) and between
/// chunks of data, removes what it wrote (the unfinished archive, the temporary folder) and throws
/// ``/DocumentPackage/PackageError`` with code `cancelled`.
/// This is how the `docpkg` tool stops on SIGINT, SIGTERM and SIGHUP; the library itself never
/// installs signal handlers.
public final class ArchiveCancellation: Sendable {
  private let lock = SystemLock()
  nonisolated(unsafe) private var flag = false

  /// A cancellation not yet cancelled.
  public init() {}

  /// Asks the operation to stop. Safe from any thread; calling it again does nothing more.
  public func cancel() { lock.withLock { flag = true } }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { lock.withLock { flag } }

  /// Throws if cancelled.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `cancelled`) naming `path`.
  func check(_ path: String) throws {
    if isCancelled { throw PackageError(.cancelled, "cancelled:", path: path, context: "(nothing was left behind)") }
  }
}
