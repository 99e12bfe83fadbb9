import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a zip entry known from the central directory only: the entry's local header is
/// read with the data each time the contents are asked for (a listing never asks), from the archive
/// shared by the tree's sources.
final class ZipListedEntrySource: FileContentSource {
  let file: ZipArchiveFile
  private let entry: ZipCentralDirectory.Entry
  let size: Int64

  init(file: ZipArchiveFile, entry: ZipCentralDirectory.Entry) {
    self.file = file
    self.entry = entry
    size = Int64(clamping: entry.dataSize)
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
  ///   the central directory says, or its data is damaged.
  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try ZipEntryReading.read(entry, of: file, dataStart: nil, chunkSize: chunkSize, body)
  }
}
