#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CArchive
import DocumentPackage

/// Process-wide setup libarchive needs, and its result codes.
enum LibArchive {
  /// libarchive converts names through the C library's multibyte functions: in the "C" locale a
  /// non-ASCII name comes back nil. A UTF-8 `LC_CTYPE` (only that category) makes them round-trip.
  static let localeReady: Bool = {
    if let current = setlocale(LC_CTYPE, nil).map({ String(cString: $0) }),
      current.uppercased().contains("UTF-8") || current.uppercased().contains("UTF8")
    {
      return true
    }
    for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, name) != nil { return true }
    return false
  }()

  static func prepare() { _ = localeReady }
}

/// Turns a libarchive result into an error. Reading treats `ARCHIVE_WARN` as a failure: libarchive
/// only warns about a bad CRC or a damaged entry, and a warning must not let damaged data through.
///
/// - Throws: ``PackageError`` with code `corrupt` naming `path` (and `entry`, when known).
func check(_ code: CInt, _ handle: OpaquePointer, path: String, entry: String? = nil, action: String) throws {
  guard code != ARCHIVE_OK, code != ARCHIVE_EOF else { return }
  var reason = archive_error_string(handle).map { String(cString: $0) } ?? "libarchive error \(code)"
  while let last = reason.last, last.isWhitespace { reason.removeLast() }
  let errno = archive_errno(handle)
  let systemError = [EIO, ENOSPC, EACCES, EPERM, ENOENT, EROFS, EDQUOT, EISDIR].contains(errno)
  if let entry {
    throw PackageError(systemError ? .io : .corrupt, "cannot \(action) entry", path: entry,
                       context: "in '\(path)': \(reason)")
  }
  throw PackageError(systemError ? .io : .corrupt, "cannot \(action)", path: path, context: ": \(reason)")
}
