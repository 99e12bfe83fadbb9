import Dispatch
import DocumentArchive
import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

/// A download of a tree as a zip, streamed: ``/DocumentArchive/ArchivePacker`` writes the zip into a pipe on a
/// thread of its own (as `docpkg pack -o -` writes to standard output: large files followed by data
/// descriptors) and the response sends what comes out of the pipe, chunk by chunk, each after the last was
/// written to the socket. The pipe's 64 KiB and one chunk are all that is held: a slow client slows the packer.
/// The response's head waits a moment for the zip's first bytes, which the packer writes once it has planned the
/// whole zip: a tree it refuses (a name that is not UTF-8, which a zip cannot hold) is answered with its error, not
/// with a 200 and a transfer cut short (``start(_:slot:)``).
///
/// **Bounded** (issue 38: 100 clients that asked for a zip of 100,000 files and read nothing took the server to
/// 1.9 GB and 207 threads, and it kept 5.1 GB after they left):
/// - at most ``Slots/limit`` downloads run at once (each holds a tree of its own, two threads and a pipe); one more
///   is answered 503 before anything is opened (``Slots/take()``);
/// - a download stops when its client goes: the connection's close cancels the request's task while the zip is
///   planned (see ``HTTPChannelHandler``), then the producer's task (see
///   ``HTTPResponse/write(to:version:keepAlive:)``), which cancels the packer and closes the pipe's read end, so a
///   packer blocked on the pipe fails (`EPIPE`) and its thread ends, and a packer still planning (listing the
///   whole tree, before it writes anything) stops at its next entry: the slot is free again at once; a client
///   that stays but takes nothing is closed by ``ConnectionDeadline`` after the idle timeout, with the same result;
/// - a chunk is read from the pipe only once the last one was written to the socket.
///
/// The packer and the reads of the pipe each run on a serial queue of the download's own, never on a shared
/// concurrent queue: the reader waits for the packer, and on Linux a concurrent queue's jobs share a pool of one
/// thread per core, which a few downloads' waiting readers would fill while their packers waited for a thread.
/// A serial queue gets a thread of its own.
enum ZipDownload {
  fileprivate static let chunkSize = 64 << 10

  /// The downloads running, at most ``limit``.
  final class Slots: Sendable {
    /// The most downloads at once.
    let limit: Int
    private let taken = NIOLockedValueBox(0)

    init(limit: Int) {
      self.limit = limit
    }

    /// How many downloads run now.
    var running: Int { taken.withLockedValue { $0 } }

    /// A slot for one download, given back when the slot is released (when the download's response and its
    /// packer have both ended); `nil` when all are taken.
    func take() -> Slot? {
      let granted = taken.withLockedValue { taken in
        guard taken < limit else { return false }
        taken += 1
        return true
      }
      return granted ? Slot(self) : nil
    }

    fileprivate func giveBack() { taken.withLockedValue { $0 -= 1 } }
  }

  /// One download's place among the ``Slots``, given back when this is released.
  final class Slot: Sendable {
    private let slots: Slots
    fileprivate init(_ slots: Slots) { self.slots = slots }
    deinit { slots.giveBack() }
  }

  /// How long the response's head waits for the zip's first bytes (see ``start(_:slot:)``).
  static let headWait: Duration = .seconds(2)

  /// Starts packing `tree` (opened for this download alone: the packer reads it on its own thread) and waits up
  /// to ``headWait`` for the zip's first bytes, which the packer writes only once it has planned the whole zip
  /// (every directory listed, every name checked): the body that sends them and the rest, holding `slot` until
  /// it ends.
  ///
  /// So a tree the packer refuses is refused before the response's head is sent, with the packer's own error (a
  /// name that is not UTF-8, which a zip cannot hold; a name `unpack` would refuse), rather than after a 200 as a
  /// transfer cut short. A plan that takes longer (many thousands of files) does not hold the head back: the
  /// client sees its download start, and a refusal found later ends the transfer short. A task cancelled
  /// meanwhile (the client left while the zip was planned) stops the packer.
  /// - Throws: What the packer threw before writing anything (``/DocumentPackage/PackageError`` naming the entry);
  ///   `CancellationError` when the task was cancelled first.
  static func start(_ tree: Handed<PackageNode>, slot: Slot) async throws -> HTTPResponse.Producer {
    let packing = try Packing(slot: slot)
    let name = tree.value.name  // read before the packer has the tree
    DispatchQueue(label: "PackageServer.ZipDownload.pack").async { packing.pack(tree.value) }
    let reading = Task { await packing.nextChunk() }
    // `.some(chunk)` once read, `nil` when the wait ended first.
    let first = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]??, Never>) in
        let waiting = NIOLockedValueBox<CheckedContinuation<[UInt8]??, Never>?>(continuation)
        @Sendable func resume(_ value: [UInt8]??) {
          waiting.withLockedValue { waiting in
            defer { waiting = nil }
            return waiting
          }?.resume(returning: value)
        }
        Task { resume(.some(await reading.value)) }
        Task {
          try? await Task.sleep(for: headWait)
          resume(nil)
        }
      }
    } onCancel: {
      reading.cancel()  // stops the packer
    }
    if let first, first?.isEmpty ?? true {
      packing.stop()
      try Task.checkCancellation()
      if case .failure(let error)? = packing.outcome { throw error }
      throw PackageError(.io, "cannot read the zip being packed of", path: name)
    }
    return { write in
      defer { packing.stop() }
      var chunk = await withTaskCancellationHandler {
        await reading.value
      } onCancel: {
        reading.cancel()
      }
      while !Task.isCancelled {
        guard let bytes = chunk else { return false }  // the pipe could not be read
        if bytes.isEmpty {  // the packer's end: whole if it finished
          if case .success? = packing.outcome { return true }
          return false
        }
        guard await write(bytes) else { return false }  // the client left
        chunk = await packing.nextChunk()
      }
      return false
    }
  }

  /// One download's packer, writing into a pipe on a thread of its own, and the pipe's read end. The slot is
  /// given back once both the packer and the response have let go of this.
  private final class Packing: Sendable {
    private let writeEnd: CInt
    /// The pipe's read end, until ``stop()``.
    private let readEnd: NIOLockedValueBox<CInt?>
    private let cancellation = ArchiveCancellation()
    private let slot: Slot
    /// How the packer ended, set before it closes the pipe's write end: read after the pipe's end.
    private let ended = NIOLockedValueBox<Result<Void, any Error>?>(nil)
    private let reads = DispatchQueue(label: "PackageServer.ZipDownload.read")

    init(slot: Slot) throws {
      self.slot = slot
      let ends = try Syscalls.makePipe()
      (readEnd, writeEnd) = (NIOLockedValueBox(ends.read), ends.write)
    }

    deinit { stop() }

    /// Stops the packer and closes the pipe's read end, so that a packer blocked on the pipe fails (`EPIPE`) and
    /// one still planning stops at its next entry. Called when no read is waiting (the response's end).
    func stop() {
      cancellation.cancel()
      if let fd = readEnd.withLockedValue({ fd in
        defer { fd = nil }
        return fd
      }) {
        Syscalls.closeFile(fd)
      }
    }

    /// How the packer ended; `nil` while it runs.
    var outcome: Result<Void, any Error>? { ended.withLockedValue { $0 } }

    /// Packs `tree` into the pipe (on the caller's thread), then closes the pipe's write end.
    func pack(_ tree: PackageNode) {
      defer { Syscalls.closeFile(writeEnd) }
      // What the packer leaves out (links unpack would refuse, FIFOs) is left out of the download too.
      let result = Result {
        _ = try ArchivePacker.pack(
          tree, writingTo: FileDescriptor(rawValue: writeEnd), label: "download", options: PackOptions(format: .zip),
          cancellation: cancellation)
      }
      // Cancelled (the client left), the package changed under the packer, or a file could not be read: the
      // client must not take what arrived for the whole zip (see `HTTPResponse.Producer`).
      ended.withLockedValue { $0 = result }
    }

    /// The next bytes the packer wrote (empty at the pipe's end), read on a queue of the download's own; `nil`
    /// when the pipe cannot be read. A task cancelled while it waits stops the packer, which then ends the pipe.
    func nextChunk() async -> [UInt8]? {
      guard let reader = readEnd.withLockedValue({ $0 }) else { return nil }
      let cancellation = cancellation
      return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          reads.async {
            continuation.resume(
              returning: try? [UInt8](unsafeUninitializedCapacity: ZipDownload.chunkSize) { buffer, count in
                count = try Syscalls.readBytes(reader, into: UnsafeMutableRawBufferPointer(buffer))
              })
          }
        }
      } onCancel: {
        // The packer stops at its next entry or block, and closes the pipe: the read ends.
        cancellation.cancel()
      }
    }
  }
}
