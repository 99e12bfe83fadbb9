import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of one zip entry read straight from the file: its local header, read when the source
/// is made, then its stored or raw-deflated data, read by ``ZipEntryReading`` (checked against the
/// central directory's CRC-32 and size).
///
/// Memory is bounded by the archive's read buffers (``ZipReadScratch``) whatever the entry's size.
/// Only entries ``ZipEntryLookup`` accepted come here: not encrypted, stored (0) or deflated (8).
final class ZipEntrySource: FileContentSource {
  /// The open archive, shared with the other entries' sources.
  private let file: ZipArchiveFile
  private let entry: ZipCentralDirectory.Entry
  let size: Int64

  /// Where the entry's data starts, after its local header.
  private let dataStart: Int64

  /// Reads the entry's local header; `nil` if it is not there or differs from the central directory
  /// (a zip with data before it, or a damaged one: the full reader decides, and says what is wrong).
  init?(file: ZipArchiveFile, entry: ZipCentralDirectory.Entry) {
    let offset = Int64(clamping: entry.localHeaderOffset)
    // One read holds the header unless its extra field is long: then a second reads all of it.
    guard var header = try? file.readBytes(count: ZipLocalHeader.fixedSize + entry.name.count + 64, at: offset),
      let length = header.withUnsafeBytes({ ZipLocalHeader.length(ofHeaderStartingWith: $0) })
    else { return nil }
    if length > header.count {
      guard let whole = try? file.readBytes(count: length, at: offset) else { return nil }
      header = whole
    }
    guard let start = try? header.withUnsafeBytes({ try ZipLocalHeader.check($0, against: entry, archive: file.path) })
    else { return nil }
    self.file = file
    self.entry = entry
    size = Int64(clamping: entry.dataSize)
    dataStart = offset + Int64(start)
  }

  /// Reads are `pread`s of the shared descriptor with state local to the call.
  var allowsConcurrentReads: Bool { true }
  /// Its CRC-32 and size are checked at its end.
  var checksDataWhenRead: Bool { true }

  func readAll() throws -> Data {
    var data = Data()
    data.reserveCapacity(Int(min(size, 1 << 24)))  // the size comes from the archive: do not trust it for memory
    try read(chunkSize: 1 << 20) { data.append(contentsOf: $0) }
    return data
  }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try ZipEntryReading.read(entry, of: file, dataStart: dataStart, chunkSize: chunkSize, body)
  }
}
