import Dispatch
import DocumentPackage
import SystemPackage

/// Runs a synchronous pack or unpack for an `async` caller: on a thread of its own (blocking file
/// I/O never runs on Swift's cooperative pool), with the calling task's cancellation forwarded to
/// an ``ArchiveCancellation``, so that cancelling the task stops the work at its next check (between
/// entries and between chunks of data) and the work removes what it wrote before it throws.
enum ArchiveWork {
  static func run<T: Sendable>(
    _ label: String, _ body: @escaping @Sendable (ArchiveCancellation) throws -> T
  ) async throws -> T {
    let cancellation = ArchiveCancellation()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        DispatchQueue(label: "docpkg.\(label)").async {
          continuation.resume(with: Result { try body(cancellation) })
        }
      }
    } onCancel: {
      cancellation.cancel()
    }
  }
}

/// Hands a value that is not `Sendable` to the work's thread. Sound only for a value the caller
/// gave up (a `sending` parameter): nothing else can reach it while the work runs.
struct SentValue<Value>: @unchecked Sendable {
  let value: Value
}

extension ArchivePacker {
  /// Packs `package` into `output` as ``pack(_:to:options:cancellation:progress:)`` does, on a
  /// thread of its own, so the caller (the main actor, say) is never blocked.
  ///
  ///     let root = try PackageNode(contentsOf: "/home/ann/Trip.mydoc")
  ///     try await ArchivePacker.pack(root, to: "/tmp/Trip.zip", options: PackOptions(format: .zip)) { progress in
  ///       print(progress.fractionDone ?? 0)
  ///     }
  ///
  /// Cancelling the calling task stops the packing promptly; `output` is then left as it was and
  /// nothing is left beside it.
  /// - Parameters:
  ///   - package: The package's root node, given up by the caller (it must not be used until the
  ///     packing ends).
  ///   - output: The archive to write.
  ///   - options: Format, level and reproducibility.
  ///   - progress: Called on the packing's thread, about ten times a second at most.
  /// - Returns: What was left out (``PackReport``).
  /// - Throws: ``/DocumentPackage/PackageError`` as the synchronous form does; code `cancelled` when the task was cancelled.
  @discardableResult
  public static func pack(
    _ package: sending PackageNode, to output: FilePath, options: PackOptions,
    progress: (@Sendable (ArchiveProgress) -> Void)? = nil
  ) async throws -> PackReport {
    let sent = SentValue(value: package)
    return try await ArchiveWork.run("pack") { cancellation in
      try pack(sent.value, to: output, options: options, cancellation: cancellation, progress: progress)
    }
  }

  /// Reads the package at `package` and packs it into `output`, on a thread of its own; see
  /// ``pack(_:to:options:progress:)``.
  /// - Parameters:
  ///   - package: The package directory.
  ///   - output: The archive to write.
  ///   - options: Format, level and reproducibility.
  ///   - progress: Called on the packing's thread, about ten times a second at most.
  /// - Throws: ``/DocumentPackage/PackageError`` if the package cannot be read or the archive written; code
  ///   `cancelled` when the task was cancelled.
  /// - Returns: What was left out (``PackReport``).
  @discardableResult
  public static func pack(
    contentsOf package: FilePath, to output: FilePath, options: PackOptions,
    progress: (@Sendable (ArchiveProgress) -> Void)? = nil
  ) async throws -> PackReport {
    try await ArchiveWork.run("pack") { cancellation in
      let root = try PackageNode(contentsOf: package)
      return try pack(root, to: output, options: options, cancellation: cancellation, progress: progress)
    }
  }
}

extension ArchiveUnpacker {
  /// Extracts `archive` into `destination` as ``unpackReporting(_:into:options:cancellation:progress:)``
  /// does, on a thread of its own, so the caller (the main actor, say) is never blocked.
  ///
  ///     let report = try await ArchiveUnpacker.unpack("/tmp/Trip.zip", into: "/home/ann/Documents")
  ///     // report.created == ["Trip.mydoc"]
  ///
  /// Cancelling the calling task stops the unpacking promptly; nothing is then left in `destination`.
  /// - Parameters:
  ///   - archive: A zip or (compressed) tar archive.
  ///   - destination: The directory to extract into.
  ///   - options: Whether to replace existing entries, skip special files, and the limits.
  ///   - progress: Called on the unpacking's thread, about ten times a second at most.
  /// - Returns: The top-level entries created, and the entries skipped with the reason.
  /// - Throws: ``/DocumentPackage/PackageError`` as the synchronous form does; code `cancelled` when the task was cancelled.
  public static func unpack(
    _ archive: FilePath, into destination: FilePath, options: UnpackOptions = UnpackOptions(),
    progress: (@Sendable (ArchiveProgress) -> Void)? = nil
  ) async throws -> UnpackReport {
    try await ArchiveWork.run("unpack") { cancellation in
      try unpackReporting(archive, into: destination, options: options, cancellation: cancellation, progress: progress)
    }
  }
}
