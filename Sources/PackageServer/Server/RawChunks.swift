/// The body of `/api/raw`: a file's bytes read a chunk at a time on the browser's queue, each chunk read only
/// once the last was taken by the socket (the producer's `write` waits for that), so that a connection holds one
/// chunk, not the file.
///
/// A file in a package on disk is read with one `pread` per chunk. An entry of an archive or a version is read
/// from its start at each chunk (``/DocumentPackage/PackageNode/bytes(at:count:)``), so its chunks are larger,
/// to keep the work for a 32 MiB image to a few passes. If the file changes between chunks (it is shorter, or
/// can no longer be read), the body is not whole and the connection ends without its last bytes, so the client
/// sees a failed transfer rather than a short body that looks complete.
enum RawChunks {
  /// The chunk of a file on disk.
  static let fileChunk = 256 << 10
  /// The chunk of an archive's or a version's entry.
  static let sourceChunk = 4 << 20

  /// The bytes of the file at `path` in `state`, `size` bytes long, in chunks of `chunkSize`.
  static func body(
    of path: String, in state: TreeState, size: Int64, chunkSize: Int, browser: PackageBrowser
  ) -> HTTPResponse.Producer {
    { write in
      var offset: Int64 = 0
      while offset < size {
        guard !Task.isCancelled else { return false }
        let count = Int(min(Int64(chunkSize), size - offset))
        let start = offset
        guard
          let chunk = try? await browser.read(
            state, { root in try root.node(at: path).bytes(at: start, count: count) }),
          chunk.count == count
        else { return false }
        guard await write(chunk) else { return false }
        offset += Int64(count)
      }
      return true
    }
  }
}
