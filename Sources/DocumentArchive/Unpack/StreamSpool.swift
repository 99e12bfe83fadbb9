import DocumentPackage
import SystemPackage

/// Copies an archive read from a stream (standard input, a pipe) into the spool file an unpack
/// reads it from (a zip's central directory is at its end), without trusting the stream:
///
/// 1. A stream that is not a regular file must show a format in its first 512 bytes (zip, tar,
///    gzip, bzip2, xz or zstd signatures; ``ArchiveFormat/init(magic:)``), as `bsdtar` decides from
///    the first block: anything else (`/dev/zero`, a text) is refused at once, and so is a first header that
///    is damaged where those bytes show it (``firstHeaderDamage(_:format:)``). A regular file on
///    standard input (`< sfx.exe`) may also be a zip with bytes before it, found from its end.
/// 2. The copy stops, refused, past ``limit(for:)``: an archive that large could not unpack within
///    the size limit anyway.
enum StreamSpool {
  /// The most bytes a stream may have for an unpack with `limits`: the size limit, plus deflate's
  /// worst-case growth (a stored block costs 5 bytes per 64 KiB), plus 2 KiB of headers per entry
  /// allowed (a tar header, a pax header and padding), plus 1 MiB.
  static func limit(for limits: UnpackLimits) -> Int64 {
    let entries = Int64(clamping: limits.maxEntryCount).multipliedReportingOverflow(by: 2048)
    let parts = [
      limits.maxTotalSize, limits.maxTotalSize / 64, entries.overflow ? .max : entries.partialValue, 1 << 20,
    ]
    return parts.reduce(Int64(0)) { sum, part in
      let (total, overflow) = sum.addingReportingOverflow(part)
      return overflow ? .max : total
    }
  }

  /// Copies `input` to its end into `fd`.
  /// - Throws: ``/DocumentPackage/PackageError`` naming `label`: code `unsupported` for a stream that is not an
  ///   archive, `limitExceeded` for one over ``limit(for:)``, `io` if it cannot be read; naming `path` if the
  ///   spool cannot be written.
  static func copy(
    _ input: CInt, label: String, to fd: CInt, path: String, limits: UnpackLimits,
    cancellation: ArchiveCancellation?
  ) throws {
    let maximum = limit(for: limits)
    // A regular file's end is known: a zip with a stub before it is found from there.
    var head: [UInt8]? = (try? Syscalls.status(of: input))?.kind == .file ? nil : []
    var copied: Int64 = 0
    try Syscalls.readChunks(input, path: FilePath(label)) { chunk in
      try cancellation?.check(label)
      if let first = head {
        head = first + chunk.prefix(512 - first.count)
        if head!.count == 512 {
          try checkFormat(head!, label: label)
          head = nil
        }
      }
      copied += Int64(chunk.count)
      if copied > maximum {
        throw PackageError(
          .limitExceeded, "archive is larger than \(maximum) bytes:", path: label,
          context: "(more than the size limit allows; raise the limit to allow it)")
      }
      do throws(Errno) { try Syscalls.writeAll(fd, chunk) } catch {
        throw PackageError.io(error, "cannot write", path: path)
      }
    }
    if let head { try checkFormat(head, label: label) }
  }

  private static func checkFormat(_ head: [UInt8], label: String) throws {
    guard let format = ArchiveFormat(magic: head) else {
      throw PackageError(
        .unsupported, "not a zip or tar archive:", path: label,
        context: "(its first bytes are no zip, tar, gzip, bzip2, xz or zstd signature)")
    }
    if let damage = firstHeaderDamage(head, format: format) {
      throw PackageError(.corrupt, "cannot read archive", path: label, context: "(\(damage))")
    }
  }

  /// What is wrong with the first header in `head`, where its first 512 bytes tell: a tar header's checksum, a
  /// gzip header's method and reserved flags (RFC 1952), a bzip2 block size, a zip local header's compression
  /// method (one APPNOTE does not define), an xz stream header's flags and their CRC-32, a zstd frame header's
  /// reserved bit and window (over the 128 MiB zstd and libarchive decode by default). A reader would refuse the stream
  /// there: it is refused before it is copied, not once the copy reaches the size limit.
  static func firstHeaderDamage(_ head: [UInt8], format: ArchiveFormat) -> String? {
    switch format {
    case .tar:
      guard head.count >= 512 else { return nil }
      let field = head[148..<156].prefix { $0 != 0 && $0 != 0x20 }.drop { $0 == 0x20 }
      guard let stored = Int(String(decoding: field, as: UTF8.self), radix: 8) else {
        return "its first tar header has no checksum"
      }
      // Summed as unsigned bytes, or signed as some old tars did (libarchive takes either).
      var unsigned = 0
      var signed = 0
      for (offset, byte) in head[0..<512].enumerated() {
        let value = (148..<156).contains(offset) ? 0x20 : byte
        unsigned += Int(value)
        signed += Int(Int8(bitPattern: value))
      }
      return stored == unsigned || stored == signed ? nil : "its first tar header's checksum does not match"
    case .tarGzip:
      guard head.count >= 4 else { return nil }
      return head[2] != 8 || head[3] & 0xE0 != 0 ? "its gzip header is damaged (not deflate, or reserved flags)" : nil
    case .tarBzip2:
      guard head.count >= 4 else { return nil }
      return (0x31...0x39).contains(head[3]) ? nil : "its bzip2 header is damaged (no block size)"
    case .zip:
      // A spanned zip's marker may come before the first local header; an empty zip is its end record alone.
      let start = head.starts(with: [0x50, 0x4B, 0x07, 0x08]) ? 4 : 0
      guard head.count >= start + 30, head[start..<start + 4].elementsEqual([0x50, 0x4B, 0x03, 0x04]) else {
        return nil
      }
      let method = Int(head[start + 8]) | Int(head[start + 9]) << 8
      let defined = (0...20).contains(method) && ![11, 13, 15, 17].contains(method) || (93...99).contains(method)
      return defined ? nil : "its first zip local header names compression method \(method), which no zip defines"
    case .tarXz:
      guard head.count >= 12 else { return nil }
      let flags = head[6..<8].withUnsafeBytes { crc32(0, $0) }
      let stored = head[8..<12].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      return head[6] != 0 || head[7] & 0xF0 != 0 || flags != stored
        ? "its xz stream header is damaged (reserved flags, or their CRC-32 does not match)" : nil
    case .tarZstd:
      guard head.count >= 6 else { return nil }
      let descriptor = head[4]
      if descriptor & 0x08 != 0 { return "its zstd frame header is damaged (its reserved bit is set)" }
      // Window_Descriptor (absent in a single-segment frame): at least 2^(10 + exponent), exponent in its high
      // 5 bits. libarchive decodes as `zstd -d` does by default, up to 2^27 (`zstd --long=28` needs more).
      let windowLog = descriptor & 0x20 != 0 ? 0 : 10 + Int(head[5] >> 3)
      return windowLog > 27
        ? "its zstd frame needs a window of \(1 << (windowLog - 20)) MiB, over the 128 MiB zstd decodes by default"
        : nil
    }
  }
}
