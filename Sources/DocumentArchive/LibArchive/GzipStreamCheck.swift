import CArchive
import DocumentPackage

/// Checks a gzip file's trailers: each member's CRC-32 and length of the data it holds.
///
/// libarchive's gzip filter does not check them (and its tar reader stops at the end-of-archive blocks, before the
/// trailer), so a `.tar.gz` with a flipped data byte or a damaged trailer would read as if whole. `gzip -t` and GNU tar
/// refuse such a file; so do we, by inflating it once more with zlib, which checks each trailer, when the tar has
/// been read to its end. Members follow one another as `gzip` concatenates them; bytes after the last member that
/// do not start another one are ignored, as libarchive and `gzip -d` ignore them. A file that ends inside a member
/// is refused.
enum GzipStreamCheck {
  /// Inflates the gzip file open as `fd` (from its start, with `pread`s) and checks every member's trailer.
  /// - Parameter archive: The archive's name, for messages.
  /// - Throws: ``/DocumentPackage/PackageError`` with code `corrupt` naming `archive` if a member is damaged or cut
  ///   short, `io` if the file cannot be read.
  static func verify(fd: CInt, archive: String) throws {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    guard docpkg_inflate_init_gzip(stream) == Z_OK else { throw damaged(archive, "zlib could not start") }
    defer { inflateEnd(stream) }
    let chunk = 1 << 18
    let input = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 4096)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 4096)
    defer {
      input.deallocate()
      output.deallocate()
    }
    var position: Int64 = 0
    var member = 1
    while true {
      if stream.pointee.avail_in == 0 {
        let count: Int
        do { count = try Syscalls.readBytes(fd, into: input, at: position) } catch {
          throw PackageError.io(error, "cannot read", path: archive)
        }
        if count == 0 { throw damaged(archive, "its gzip data ends before the trailer of member \(member)") }
        position += Int64(count)
        stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(count)
      }
      stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
      stream.pointee.avail_out = uInt(chunk)
      switch CArchive.inflate(stream, Z_NO_FLUSH) {
      case Z_OK:
        continue
      case Z_BUF_ERROR where stream.pointee.avail_in == 0:
        continue  // more input wanted
      case Z_STREAM_END:
        // Another member follows only if its magic does; anything else after the last member is not gzip data.
        let next = try nextBytes(stream, fd: fd, at: position, archive: archive)
        guard next.starts(with: [0x1F, 0x8B]) else { return }
        member += 1
        guard inflateReset(stream) == Z_OK else { throw damaged(archive, "zlib could not start") }
      default:
        let message = stream.pointee.msg.map { String(cString: $0) } ?? "damaged data"
        // zlib says "incorrect data check" for a CRC-32 that does not match, "incorrect length check" for a length.
        let reason =
          switch message {
          case "incorrect data check": "its CRC-32 does not match its data"
          case "incorrect length check": "its length does not match its data"
          default: message
          }
        throw damaged(archive, "gzip member \(member): \(reason)")
      }
    }
  }

  /// The first two bytes after the current member: from the input zlib has not used, then from the file.
  private static func nextBytes(
    _ stream: UnsafeMutablePointer<z_stream>, fd: CInt, at position: Int64, archive: String
  ) throws -> [UInt8] {
    let pending = Int(stream.pointee.avail_in)
    if pending >= 2 { return [stream.pointee.next_in[0], stream.pointee.next_in[1]] }
    var bytes = pending == 1 ? [stream.pointee.next_in[0]] : []
    do { bytes += try Syscalls.readBytes(fd, at: position, count: 2 - pending) } catch {
      throw PackageError.io(error, "cannot read", path: archive)
    }
    return bytes
  }

  private static func damaged(_ archive: String, _ reason: String) -> PackageError {
    PackageError(.corrupt, "cannot read tar archive", path: archive, context: "(\(reason): damaged or truncated?)")
  }
}
