import Dispatch
import DocumentArchive
import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

/// A download of a tree as a zip, streamed: ``/DocumentArchive/ArchivePacker`` writes the zip into a pipe on a
/// thread of its own (as `docpkg pack -o -` writes to standard output: large files followed by data
/// descriptors) and the response sends what comes out of the pipe, chunk by chunk, each after the last was
/// written to the socket. The pipe's 64 KiB and one chunk are all that is held: a slow client slows the packer.
///
/// **Bounded** (issue 38: 100 clients that asked for a zip of 100,000 files and read nothing took the server to
/// 1.9 GB and 207 threads, and it kept 5.1 GB after they left):
/// - at most ``Slots/limit`` downloads run at once (each holds a tree of its own, two threads and a pipe); one more
///   is answered 503 before anything is opened (``Slots/take()``);
/// - a download stops when its client goes: the connection's close cancels the producer's task (see
///   ``HTTPResponse/write(to:version:keepAlive:)``), which cancels the packer and closes the pipe's read end, so a
///   packer blocked on the pipe fails (`EPIPE`) and its thread ends, and a packer still planning (listing the
///   whole tree, before it writes anything) stops at its next entry: the slot is free again at once; a client that stays but takes nothing is
///   closed by ``ConnectionDeadline`` after the idle timeout, with the same result;
/// - a chunk is read from the pipe only once the last one was written to the socket.
///
/// The packer and the reads of the pipe each run on a serial queue of the download's own, never on a shared
/// concurrent queue: the reader waits for the packer, and on Linux a concurrent queue's jobs share a pool of one
/// thread per core, which a few downloads' waiting readers would fill while their packers waited for a thread.
/// A serial queue gets a thread of its own.
enum ZipDownload {
  private static let chunkSize = 64 << 10

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

  /// The body of a download of `tree` (opened for this download alone: the packer reads it on its own thread),
  /// holding `slot` until it ends.
  static func body(of tree: Handed<PackageNode>, slot: Slot) -> HTTPResponse.Producer {
    { write in
      defer { withExtendedLifetime(slot) {} }
      guard !Task.isCancelled else { return false }  // the client left before the response began
      guard let ends = try? Syscalls.makePipe() else { return false }
      let cancellation = ArchiveCancellation()
      // Set by the packer before it closes the pipe, read after the pipe's end: whether the zip is whole.
      let packed = NIOLockedValueBox(false)
      DispatchQueue(label: "PackageServer.ZipDownload.pack").async {
        // The slot is given back once both the packer and the response have ended.
        defer { withExtendedLifetime(slot) {} }
        defer { Syscalls.closeFile(ends.write) }
        do {
          try ArchivePacker.pack(
            tree.value, writingTo: FileDescriptor(rawValue: ends.write), label: "download",
            options: PackOptions(format: .zip), cancellation: cancellation)
          packed.withLockedValue { $0 = true }
        } catch {
          // Cancelled (the client left), the package changed under the packer, or a file could not be read: the
          // client must not take what arrived for the whole zip (see `HTTPResponse.Producer`).
        }
      }
      let reader = ends.read
      let reads = DispatchQueue(label: "PackageServer.ZipDownload.read")
      defer {
        cancellation.cancel()
        Syscalls.closeFile(ends.read)
      }
      return await withTaskCancellationHandler {
        while !Task.isCancelled {
          let chunk = await withCheckedContinuation { continuation in
            reads.async {
              continuation.resume(
                returning: try? [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, count in
                  count = try Syscalls.readBytes(reader, into: UnsafeMutableRawBufferPointer(buffer))
                })
            }
          }
          guard let chunk else { return false }  // the pipe could not be read
          if chunk.isEmpty { return packed.withLockedValue { $0 } }  // the packer's end: whole if it finished
          guard await write(chunk) else { return false }  // the client left
        }
        return false
      } onCancel: {
        // The packer stops at its next entry or block; the pipe is closed when the loop ends.
        cancellation.cancel()
      }
    }
  }
}
