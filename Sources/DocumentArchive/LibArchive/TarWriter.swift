import CArchive
import DocumentPackage
import SystemPackage

/// A libarchive write handle producing a (possibly compressed) pax tar on a file descriptor.
///
/// Owns the handle and a reusable entry (freed in `deinit`). Names are written as UTF-8 pax
/// records when they are not plain ASCII, and times with nanoseconds as pax `mtime` records (an
/// entry needing neither has a plain ustar header); owners are 0 with no names, so the archive
/// does not depend on who packed it.
final class TarWriter {
  private let handle: OpaquePointer
  private let entry: OpaquePointer
  let path: String
  private var closed = false

  init(fd: CInt, path: String, format: ArchiveFormat, level: Int?, reproducible: Bool) throws {
    try LibArchive.prepare(for: path)
    self.path = path
    handle = docpkg_archive_write_new()
    entry = docpkg_archive_entry_new()
    // Full pax, not restricted: libarchive then writes an `mtime` record for a time with nanoseconds
    // (restricted pax drops them unless the entry needs a pax header for another reason).
    try check(docpkg_archive_write_set_format_pax(handle), handle, path: path, action: "write tar")
    var filter = ""
    switch format {
    case .tarGzip:
      filter = "gzip"
      try check(docpkg_archive_write_add_filter_gzip(handle), handle, path: path, action: "write gzip")
      if reproducible { try option(filter, "timestamp", nil) }
    case .tarBzip2:
      filter = "bzip2"
      try check(docpkg_archive_write_add_filter_bzip2(handle), handle, path: path, action: "write bzip2")
    case .tarXz:
      filter = "xz"
      try check(docpkg_archive_write_add_filter_xz(handle), handle, path: path, action: "write xz")
    case .tarZstd:
      filter = "zstd"
      try check(docpkg_archive_write_add_filter_zstd(handle), handle, path: path, action: "write zstd")
    case .tar, .zip: break
    }
    if let level, !filter.isEmpty { try option(filter, "compression-level", String(level)) }
    docpkg_archive_write_set_bytes_in_last_block(handle, 1)
    try check(docpkg_archive_write_open_fd(handle, fd), handle, path: path, action: "write")
  }

  deinit {
    if !closed { docpkg_archive_write_close(handle) }
    docpkg_archive_entry_free(entry)
    docpkg_archive_write_free(handle)
  }

  private func option(_ module: String, _ name: String, _ value: String?) throws {
    try check(
      docpkg_archive_write_set_filter_option(handle, module, name, value), handle, path: path,
      action: "set \(module) \(name) for")
  }

  /// Writes one entry's header, then its contents (for a file) from `produce`.
  /// - Parameter dataRanges: Where a sparse file's data is: the entry is then a pax sparse entry
  ///   (`GNU.sparse` 1.0) that stores only those ranges; `produce` still hands over every byte.
  func write(
    _ item: PackEntry, dataRanges: [Range<Int64>]? = nil,
    produce: (((UnsafeRawBufferPointer) throws -> Void) throws -> Void)?
  ) throws {
    try Syscalls.withUTF8CharacterType { try writeHeader(item, dataRanges: dataRanges) }
    guard item.kind == .file, let produce else { return }
    var written: Int64 = 0
    try produce { chunk in
      guard written + Int64(chunk.count) <= item.size else {
        throw PackageError(.changedOnDisk, "file grew while it was packed:", path: item.name)
      }
      let result = docpkg_archive_write_data(self.handle, chunk.baseAddress, chunk.count)
      if result < 0 { try check(CInt(result), self.handle, path: self.path, entry: item.name, action: "write data of") }
      written += Int64(chunk.count)
    }
    guard written == item.size else {
      throw PackageError(.changedOnDisk, "file shrank while it was packed:", path: item.name)
    }
  }

  /// Writes `item`'s header, in a UTF-8 character type: libarchive converts the names as it writes them.
  private func writeHeader(_ item: PackEntry, dataRanges: [Range<Int64>]?) throws {
    docpkg_archive_entry_clear(entry)
    // The name's bytes as they are on disk, in the locale's character type (UTF-8 here): libarchive normalizes a
    // name given as UTF-8 (`archive_entry_set_pathname_utf8`) to NFC when it converts it for the header, which
    // would write `e` + U+0301 as `é`. Not UTF-8, the bytes are written as a pax path with `hdrcharset=BINARY`.
    var rawName = item.name.unicodeScalars.contains(where: EntryName.isRawByte)
    docpkg_archive_entry_copy_pathname(entry, Self.cString(EntryName.rawBytes(item.name)))
    let time = LibArchive.fields(item.modificationTime)
    docpkg_archive_entry_set_mtime(entry, time_t(time.seconds), Int(time.nanoseconds))
    docpkg_archive_entry_set_uid(entry, 0)
    docpkg_archive_entry_set_gid(entry, 0)
    switch item.kind {
    case .directory:
      docpkg_archive_entry_set_filetype(entry, docpkg_AE_IFDIR)
      docpkg_archive_entry_set_perm(entry, CInterop.Mode(item.mode))
    case .symlink:
      docpkg_archive_entry_set_filetype(entry, docpkg_AE_IFLNK)
      docpkg_archive_entry_set_perm(entry, 0o777)
      let destination = RawByteNames.encode(item.linkDestination)
      docpkg_archive_entry_copy_symlink(entry, Self.cString(destination))
      if String(validating: destination, as: UTF8.self) == nil { rawName = true }  // a pax linkpath, BINARY too
    case .file:
      docpkg_archive_entry_set_filetype(entry, docpkg_AE_IFREG)
      docpkg_archive_entry_set_perm(entry, CInterop.Mode(item.mode))
      docpkg_archive_entry_set_size(entry, item.size)
      for range in dataRanges ?? [] {
        docpkg_archive_entry_sparse_add_entry(entry, range.lowerBound, range.upperBound - range.lowerBound)
      }
    }
    let result = docpkg_archive_write_header(handle, entry)
    // libarchive warns that it cannot translate a name or link target that is not UTF-8, and writes its bytes.
    if !(rawName && result == ARCHIVE_WARN) {
      try check(result, handle, path: path, entry: item.name, action: "write header of")
    }
  }

  /// `bytes` and a NUL, for libarchive's setters that copy a string in the locale's character type.
  private static func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

  /// Finishes the archive (end blocks, compressor trailer).
  func finish() throws {
    closed = true
    try check(docpkg_archive_write_close(handle), handle, path: path, action: "finish")
  }
}
