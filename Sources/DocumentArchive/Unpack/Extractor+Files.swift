import DocumentPackage
import SystemPackage

// Regular files: large ones streamed through the StreamWriter (a sparse tar entry's holes left holes),
// small ones read for the writer pool, both checked against their declared size and the unpack limits.
extension Extractor {
  /// Streams a large file: this thread inflates, ``StreamWriter`` writes.
  func writeFile(_ header: EntryHeader, name: String, in parent: CInt, path: String) throws {
    let fd: CInt
    do { fd = try Syscalls.createFile(in: parent, RawName(entryName: name)) } catch {
      throw PackageError.io(error, "cannot create", path: path, context: "in '\(archive)'")
    }
    let file = OpenFile(fd: fd, path: path)
    var written: Int64 = 0  // the file's length so far, holes included
    try reader.readData { block, offset in
      if offset > written {
        // A hole in a sparse tar entry: left a hole. It takes no disk, but it counts toward the limits: what
        // the user's tools see (ls, a copy, a backup) is the file's length.
        try checkLimits(adding: offset - written, header)
        streamWriter.skip(offset - written, in: file)
        written = offset
      }
      try checkLimits(adding: Int64(block.count), header)
      try streamWriter.append(block, to: file)
      written += Int64(block.count)
    }
    if let size = header.size, written != size, !(written < size && reader.format.isTar) {
      throw refuse(.corrupt, header, "its header says \(size) bytes but its data has \(written)")
    }
    // A sparse tar entry may end in a hole: the size makes it (and counts, as other holes do).
    if let size = header.size, size > written { try checkLimits(adding: size - written, header) }
    streamWriter.finish(
      file, size: max(written, header.size ?? 0), mode: CInterop.Mode(header.mode & Self.permissionMask),
      time: header.modificationTime)
  }

  func checkLimits(adding count: Int64, _ header: EntryHeader) throws {
    try cancellation?.check(archive)
    totalBytes += count
    reportProgressIfDue()
    try limits.checkExpansion(
      totalBytes, archiveSize: reader.archiveSize, archive: archive, entry: header.displayName)
  }

  /// A small file's contents, checked against its declared size and the limits.
  func readSmallFile(_ header: EntryHeader, size: Int64) throws -> [UInt8] {
    var data: [UInt8] = []
    data.reserveCapacity(Int(size))
    try reader.readData { block, offset in
      if offset > Int64(data.count) {
        try checkLimits(adding: offset - Int64(data.count), header)
        data.append(contentsOf: repeatElement(0, count: Int(offset) - data.count))
      }
      try checkLimits(adding: Int64(block.count), header)
      guard data.count + block.count <= Int(size) else {
        throw refuse(.corrupt, header, "its data is longer than the \(size) bytes its header says")
      }
      data.append(contentsOf: block)
    }
    if data.count < Int(size) {
      guard reader.format.isTar else {
        throw refuse(.corrupt, header, "its header says \(size) bytes but its data has \(data.count)")
      }
      // A sparse tar entry ending in a hole, which counts toward the limits as other holes do.
      try checkLimits(adding: size - Int64(data.count), header)
      data.append(contentsOf: repeatElement(0, count: Int(size) - data.count))
    }
    return data
  }
}
