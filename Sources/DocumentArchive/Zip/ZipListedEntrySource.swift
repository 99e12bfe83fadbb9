import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a zip entry known from the central directory only: the entry's local header is
/// read when the contents are first asked for (a listing never asks), from the archive shared by
/// the tree's sources.
final class ZipListedEntrySource: FileContentSource {
  let file: ZipArchiveFile
  private let entry: ZipCentralDirectory.Entry
  let size: Int64

  init(file: ZipArchiveFile, entry: ZipCentralDirectory.Entry) {
    self.file = file
    self.entry = entry
    size = Int64(clamping: entry.size)
  }

  /// A reader of the entry's data.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the entry if its local header is not where
  ///   the central directory says.
  private func open() throws -> ZipEntrySource {
    guard let source = ZipEntrySource(file: file, entry: entry) else {
      throw PackageError(
        .corrupt, "cannot read data of entry", path: EntryName.decodeZip(entry.name),
        context: "in '\(file.path)': its local header is missing")
    }
    return source
  }

  /// Reads are `pread`s of the shared descriptor (see ``ZipEntrySource``).
  var allowsConcurrentReads: Bool { true }

  func readAll() throws -> Data { try open().readAll() }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try open().read(chunkSize: chunkSize, body)
  }
}
