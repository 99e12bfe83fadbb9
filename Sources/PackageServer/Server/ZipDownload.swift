import Dispatch
import DocumentArchive
import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

/// A download of a tree as a zip, streamed: ``/DocumentArchive/ArchivePacker`` writes the zip into a pipe on a
/// thread of its own (as `docpkg pack -o -` writes to standard output: large files followed by data
/// descriptors) and the response sends what comes out of the pipe, chunk by chunk, each after the last was
/// written to the socket. The pipe's 64 KiB and one chunk are all that is held: a slow client slows the packer,
/// and a client that leaves closes the pipe, which stops the packer (cancelled, and its next write fails).
///
/// The packer and the reads of the pipe each run on a serial queue of the download's own, never on a shared
/// concurrent queue: the reader waits for the packer, and on Linux a concurrent queue's jobs share a pool of one
/// thread per core, which a few downloads' waiting readers would fill while their packers waited for a thread.
/// A serial queue gets a thread of its own.
enum ZipDownload {
  private static let chunkSize = 64 << 10

  /// The body of a download of `tree` (opened for this download alone: the packer reads it on its own thread).
  static func body(of tree: Handed<PackageNode>) -> HTTPResponse.Producer {
    { write in
      guard let ends = try? Syscalls.makePipe() else { return false }
      let cancellation = ArchiveCancellation()
      // Set by the packer before it closes the pipe, read after the pipe's end: whether the zip is whole.
      let packed = NIOLockedValueBox(false)
      DispatchQueue(label: "PackageServer.ZipDownload.pack").async {
        defer { Syscalls.closeFile(ends.write) }
        do {
          try ArchivePacker.pack(
            tree.value, writingTo: FileDescriptor(rawValue: ends.write), label: "download",
            options: PackOptions(format: .zip), cancellation: cancellation)
          packed.withLockedValue { $0 = true }
        } catch {
          // The package changed under the packer, or a file could not be read: the client must not take what
          // arrived for the whole zip (see `HTTPResponse.Producer`).
        }
      }
      let reader = ends.read
      let reads = DispatchQueue(label: "PackageServer.ZipDownload.read")
      defer {
        cancellation.cancel()
        Syscalls.closeFile(ends.read)
      }
      while true {
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
    }
  }
}
