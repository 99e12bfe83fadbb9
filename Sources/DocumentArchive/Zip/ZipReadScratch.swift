import CArchive
import DocumentPackage

/// Memory for reading zip entries, kept by the archive (``ZipArchiveFile``) and lent to one read at a
/// time, so that reading thousands of entries allocates (and the kernel zero-fills) nothing per entry.
///
/// An entry whose deflated data and contents both fit in ``wholeEntryLimit`` is read with one `pread`
/// (its local header and data together) and inflated in one call by libdeflate into ``output``;
/// stored entries are read through ``input`` a block at a time.
final class ZipReadScratch {
  /// The largest entry (deflated and inflated size) read and inflated whole; larger ones stream through zlib.
  static let wholeEntryLimit = 1 << 20
  /// Room before the data for a local header: 30 bytes, a name and an extra field of at most 65,535 each.
  static let headerRoom = 30 + 2 * 0xFFFF
  /// The alignment of the buffers: a page (`Syscalls.readBufferAlignment`). Reads land at their file
  /// offset's place within a page (``ZipEntryReading/placed(_:)``), which needs up to one page more room.
  static let alignment = Syscalls.readBufferAlignment

  /// A local header and its data, or a block of data, at their place within a page.
  let input: UnsafeMutableRawBufferPointer
  /// Inflated contents, made when first needed.
  private var outputBuffer: UnsafeMutableRawBufferPointer?
  /// libdeflate's decompressor, made when first needed.
  private var decompressorPointer: OpaquePointer?

  init() {
    input = .allocate(byteCount: Self.alignment + Self.headerRoom + Self.wholeEntryLimit, alignment: Self.alignment)
  }

  deinit {
    input.deallocate()
    outputBuffer?.deallocate()
    if let decompressorPointer { libdeflate_free_decompressor(decompressorPointer) }
  }

  /// ``wholeEntryLimit`` bytes for inflated contents.
  var output: UnsafeMutableRawBufferPointer {
    if let outputBuffer { return outputBuffer }
    let made = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.wholeEntryLimit, alignment: Self.alignment)
    outputBuffer = made
    return made
  }

  /// libdeflate's decompressor; `nil` only if it could not be allocated.
  var decompressor: OpaquePointer? {
    if decompressorPointer == nil { decompressorPointer = libdeflate_alloc_decompressor() }
    return decompressorPointer
  }
}
