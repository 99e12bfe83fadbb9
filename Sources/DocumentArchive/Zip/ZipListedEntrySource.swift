import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a zip entry known from the central directory only: the archive is opened, and the
/// entry's local header read, when the contents are first asked for (a listing never asks).
final class ZipListedEntrySource: FileContentSource {
  private let archive: FilePath
  private let entry: ZipCentralDirectory.Entry
  let size: Int64

  init(archive: FilePath, entry: ZipCentralDirectory.Entry) {
    self.archive = archive
    self.entry = entry
    size = Int64(clamping: entry.size)
  }

  /// A reader of the entry's data.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the entry if the archive cannot be opened or
  ///   the entry's local header is not where the central directory says.
  private func open() throws -> ZipEntrySource {
    let fd: CInt
    do { fd = try Syscalls.openFile(archive, .readOnly) } catch {
      throw PackageError.io(error, "cannot open", path: archive.string)
    }
    guard let source = ZipEntrySource(fd: fd, entry: entry, archive: archive.string) else {
      Syscalls.closeFile(fd)
      throw PackageError(
        .corrupt, "cannot read data of entry", path: EntryName.decodeZip(entry.name),
        context: "in '\(archive.string)': its local header is missing")
    }
    return source
  }

  func readAll() throws -> Data { try open().readAll() }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try open().read(chunkSize: chunkSize, body)
  }
}
