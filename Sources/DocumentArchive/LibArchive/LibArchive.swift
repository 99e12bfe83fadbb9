import CArchive
import DocumentPackage
import SystemPackage

/// Process-wide setup libarchive needs, and its result codes.
enum LibArchive {
  /// libarchive converts names through the C library's multibyte functions: in the "C" locale a
  /// non-ASCII name comes back nil. A UTF-8 `LC_CTYPE` (only that category) makes them round-trip.
  static let localeReady: Bool = Syscalls.useUTF8CharacterType()

  static func prepare() { _ = localeReady }
}

/// Turns a libarchive result into an error. Reading treats `ARCHIVE_WARN` as a failure: libarchive
/// only warns about a bad CRC or a damaged entry, and a warning must not let damaged data through.
///
/// - Throws: ``/DocumentPackage/PackageError`` with code `corrupt` naming `path` (and `entry`, when known).
func check(_ code: CInt, _ handle: OpaquePointer, path: String, entry: String? = nil, action: String) throws {
  guard code != ARCHIVE_OK, code != ARCHIVE_EOF else { return }
  var reason = archive_error_string(handle).map { String(cString: $0) } ?? "libarchive error \(code)"
  while let last = reason.last, last.isWhitespace { reason.removeLast() }
  let errno = Errno(rawValue: archive_errno(handle))
  let systemError: Bool = [
    .ioError, .noSpace, .permissionDenied, .notPermitted, .noSuchFileOrDirectory, .readOnlyFileSystem,
    .diskQuotaExceeded, .isDirectory,
  ].contains(errno)
  if let entry {
    throw PackageError(
      systemError ? .io : .corrupt, "cannot \(action) entry", path: entry,
      context: "in '\(path)': \(reason)")
  }
  throw PackageError(systemError ? .io : .corrupt, "cannot \(action)", path: path, context: ": \(reason)")
}
