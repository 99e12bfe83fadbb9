extension PackageNode {
  /// Up to `count` bytes of a regular file from `offset` (fewer at its end), without reading the whole file:
  /// one `pread` for a file on disk; a source (an archive's entry) is read from its start and the read stops
  /// once the range is in hand, so memory stays bounded by `count` and a chunk.
  /// - Throws: As ``contents(options:)``.
  /// - Complexity: O(`count`) on disk; O(`offset` + `count`) for a source.
  package func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
    try requireKind(.file)
    guard count > 0, offset < size else { return [] }
    if case .onDisk = fileBody, cachedContents == nil, let origin {
      let fd = try openForReading()
      defer { Syscalls.closeFile(fd.rawValue) }
      do { return try Syscalls.readBytes(fd.rawValue, at: offset, count: count) } catch {
        throw PackageError.io(error, "cannot read", path: origin.absolutePath)
      }
    }
    var collected: [UInt8] = []
    collected.reserveCapacity(count)
    var position: Int64 = 0
    do {
      try readContents(chunkSize: 1 << 16) { chunk in
        let start = max(0, Int(offset - position))
        if start < chunk.count {
          collected.append(contentsOf: chunk[start..<min(chunk.count, start + count - collected.count)])
        }
        position += Int64(chunk.count)
        if collected.count == count { throw RangeComplete() }
      }
    } catch is RangeComplete {}
    return collected
  }
}

/// Ends a source's read once the range asked for is in hand.
private struct RangeComplete: Error {}
