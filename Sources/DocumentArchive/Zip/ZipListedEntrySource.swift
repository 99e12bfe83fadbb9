import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a zip entry known from the central directory only: the entry's local header is
/// read with the data each time the contents are asked for (a listing never asks), from the archive
/// shared by the tree's sources. The entry is kept whole, or (for an ``ArchiveEntryIndex``, which keeps no
/// names) by where its central header is, read again with the contents.
final class ZipListedEntrySource: FileContentSource {
  let file: ZipArchiveFile
  private enum Listed {
    case entry(ZipCentralDirectory.Entry)
    case header(in: ZipCentralDirectory, at: Int64)
  }
  private let listed: Listed
  let size: Int64

  init(file: ZipArchiveFile, entry: ZipCentralDirectory.Entry) {
    self.file = file
    listed = .entry(entry)
    size = Int64(clamping: entry.dataSize)
  }

  /// The file whose central header starts at `position` of `directory`, and whose data size is `size`.
  init(file: ZipArchiveFile, directory: ZipCentralDirectory, headerPosition position: Int64, size: Int64) {
    self.file = file
    listed = .header(in: directory, at: position)
    self.size = size
  }

  /// Reads are `pread`s of the shared descriptor (see ``ZipEntrySource``).
  var allowsConcurrentReads: Bool { true }
  /// Its CRC-32 and size are checked at its end.
  var checksDataWhenRead: Bool { true }

  func readAll() throws -> Data {
    var data = Data()
    data.reserveCapacity(Int(min(size, 1 << 24)))  // the size comes from the archive: do not trust it for memory
    try read(chunkSize: 1 << 20) { data.append(contentsOf: $0) }
    return data
  }

  /// Reads the local header and the start of the data with one `pread` (``ZipEntryReading``).
  /// - Throws: ``/DocumentPackage/PackageError`` naming the entry if its local header is not where
  ///   the central directory says, or its data is damaged; naming the archive if its central header is
  ///   no longer where it was.
  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let entry: ZipCentralDirectory.Entry
    switch listed {
    case .entry(let known): entry = known
    case .header(let directory, let position):
      entry = try directory.entry(at: position, archive: file.path)
      guard Int64(clamping: entry.dataSize) == size, !entry.isDirectory else {
        throw PackageError(
          .corrupt, "cannot read zip archive", path: file.path, context: "(changed since it was opened)")
      }
    }
    try ZipEntryReading.read(entry, of: file, dataStart: nil, chunkSize: chunkSize, body)
  }
}
