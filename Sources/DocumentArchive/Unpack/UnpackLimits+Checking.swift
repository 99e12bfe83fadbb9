import DocumentPackage

/// The one rule against archive bombs, applied by ``Extractor`` to the bytes it writes and by
/// ``ArchivePackage/open(_:unwrappingSingleDirectory:limits:)`` to the sizes the entries declare (so that
/// `docpkg serve` refuses what `unpack` would, before anything is served).
extension UnpackLimits {
  /// Throws when an archive of `archiveSize` bytes holds more than ``maxEntryCount`` entries.
  /// - Throws: ``/DocumentPackage/PackageError`` `limitExceeded`, naming `archive`.
  func checkEntryCount(_ count: Int, archive: String) throws {
    if count > maxEntryCount {
      throw PackageError(
        .limitExceeded, "too many entries in", path: archive,
        context: "(more than \(maxEntryCount); raise the limit to allow it)")
    }
  }

  /// Throws when `expanded` bytes of file contents, up to and including those of `entry`, are more than
  /// ``maxTotalSize``, or (past ``ratioGrace``) more than ``maxCompressionRatio`` times `archiveSize`.
  /// - Throws: ``/DocumentPackage/PackageError`` `limitExceeded`, naming `archive` and `entry`.
  func checkExpansion(_ expanded: Int64, archiveSize: Int64, archive: String, entry: String) throws {
    if expanded > maxTotalSize {
      throw PackageError(
        .limitExceeded, "archive expands to more than \(maxTotalSize) bytes:", path: archive,
        context: "(at entry '\(entry)'; raise the limit to allow it)")
    }
    if exceedsRatio(expanded, archiveSize: archiveSize) {
      throw PackageError(
        .limitExceeded, "archive expands more than \(Int(maxCompressionRatio)) times its size:",
        path: archive, context: "(at entry '\(entry)'; a decompression bomb? raise the limit to allow it)")
    }
  }

  /// Whether `expanded` bytes out of an archive of `archiveSize` bytes are, past ``ratioGrace``, more than
  /// ``maxCompressionRatio`` times its size.
  func exceedsRatio(_ expanded: Int64, archiveSize: Int64) -> Bool {
    expanded > Self.ratioGrace && Double(expanded) > maxCompressionRatio * Double(max(archiveSize, 1))
  }
}
