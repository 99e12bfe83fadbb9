import Dispatch
import DocumentArchive
import DocumentPackage
import SystemPackage

/// A download of a tree as a zip, streamed: ``/DocumentArchive/ArchivePacker`` writes the zip into a pipe on a
/// thread of its own (as `docpkg pack -o -` writes to standard output: large files followed by data
/// descriptors) and the response sends what comes out of the pipe, chunk by chunk, each after the last was
/// written to the socket. The pipe's 64 KiB and one chunk are all that is held: a slow client slows the packer,
/// and a client that leaves closes the pipe, which stops the packer (cancelled, and its next write fails).
enum ZipDownload {
  private static let packers = DispatchQueue(label: "PackageServer.ZipDownload", attributes: .concurrent)
  private static let chunkSize = 64 << 10

  /// The body of a download of `tree` (opened for this download alone: the packer reads it on its own thread).
  static func body(of tree: Handed<PackageNode>) -> HTTPResponse.Producer {
    { write in
      guard let ends = try? Syscalls.makePipe() else { return }
      let cancellation = ArchiveCancellation()
      packers.async {
        defer { Syscalls.closeFile(ends.write) }
        try? ArchivePacker.pack(
          tree.value, writingTo: FileDescriptor(rawValue: ends.write), label: "download",
          options: PackOptions(format: .zip), cancellation: cancellation)
      }
      let reader = ends.read
      defer {
        cancellation.cancel()
        Syscalls.closeFile(ends.read)
      }
      while true {
        let chunk = try? await BlockingIO.run { () throws -> [UInt8] in
          try [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, count in
            count = try Syscalls.readBytes(reader, into: UnsafeMutableRawBufferPointer(buffer))
          }
        }
        guard let chunk, !chunk.isEmpty, await write(chunk) else { return }
      }
    }
  }
}
