import CArchive
import DocumentPackage
import SystemPackage

/// Process-wide setup libarchive needs, and its result codes.
enum LibArchive {
  /// Why libarchive could not be opened, or `nil` once it is ready. It is opened on first use, not
  /// linked, so that commands and apps that never read a tar do not load it and its dependencies.
  static let loadFailure: String? = docpkg_libarchive_load().map { String(cString: $0) }

  /// Opens libarchive (once per process). Call before any `docpkg_archive_*` function; calls that
  /// convert names run inside ``Syscalls/withUTF8CharacterType(_:)``.
  /// - Throws: ``/DocumentPackage/PackageError`` with code `unsupported` naming `path` (the archive
  ///   about to be read or written) if libarchive cannot be opened.
  static func prepare(for path: String) throws {
    if let loadFailure {
      throw PackageError(
        .unsupported, "cannot read or write archive", path: path, context: "(libarchive is needed: \(loadFailure))")
    }
  }
}

/// Turns a libarchive result into an error. Reading treats `ARCHIVE_WARN` as a failure: libarchive
/// only warns about a bad CRC or a damaged entry, and a warning must not let damaged data through.
///
/// - Throws: ``/DocumentPackage/PackageError`` with code `corrupt` naming `path` (and `entry`, when known).
func check(_ code: CInt, _ handle: OpaquePointer, path: String, entry: String? = nil, action: String) throws {
  guard code != ARCHIVE_OK, code != ARCHIVE_EOF else { return }
  // libarchive's words, on one line with single spaces ("Lzma library error:  No progress is possible"); without
  // any, what a reader can act on.
  let words = docpkg_archive_error_string(handle).map { String(cString: $0) } ?? ""
  var reason = words.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  if reason.isEmpty { reason = "damaged or truncated" }
  let errno = Errno(rawValue: docpkg_archive_errno(handle))
  let systemError: Bool = [
    .ioError, .noSpace, .permissionDenied, .notPermitted, .noSuchFileOrDirectory, .readOnlyFileSystem,
    .diskQuotaExceeded, .isDirectory,
  ].contains(errno)
  // libarchive says "Write error" where the system said why (a full disk).
  if systemError, !reason.contains(errno.description) { reason += " (\(errno.description))" }
  if let entry {
    throw PackageError(
      systemError ? .io : .corrupt, "cannot \(action) entry", path: entry,
      context: "in '\(path)': \(reason)")
  }
  throw PackageError(systemError ? .io : .corrupt, "cannot \(action)", path: path, context: "(\(reason))")
}
