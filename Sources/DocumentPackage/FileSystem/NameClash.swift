import SystemPackage

/// An entry that cannot be written to a file system as it is.
///
/// The file system does not tell its name apart from a sibling's (they differ only in case, or in case
/// and Unicode normalization), or cannot hold the name at all. Found by ``SiblingNameCheck`` before
/// anything is written.
package struct NameClash: Hashable, Sendable {
  /// The entry's path (in the package, the archive or the remote tree).
  package var path: String
  /// The sibling's path, when the clash is with a sibling.
  package var sibling: String?
  /// Why, as words followed by "on the file system at …" when `sibling` is `nil` (from
  /// ``FileSystemNaming/problem(with:)``), else how the two names differ ("case").
  package var reason: String
  /// The directory whose file system was probed, for messages.
  package var fileSystem: FilePath

  /// The error to report.
  ///
  /// Its code is `invalidName` (not `nameTaken`: nothing is in the way that replacing would clear); it reads
  ///
  ///     cannot save 'Notes/A.txt' in 'Trip.mydoc': it differs from 'Notes/a.txt' only in case, which the file system at '/media/stick' does not tell apart
  ///     cannot save 'x:y.txt' in 'Trip.mydoc': ':' is not allowed in a name on the file system at '/media/stick'
  ///
  /// - Parameters:
  ///   - action: What could not be done: `cannot save`, `cannot unpack`.
  ///   - place: Where, after the path: `in 'Trip.mydoc'`, `from 'Trip.zip'`.
  /// - Returns: One line naming the entry, the sibling if any, the reason and the file system.
  package func error(_ action: String, _ place: String) -> PackageError {
    let onFileSystem = "the file system at '\(fileSystem.string)'"
    if let sibling {
      return PackageError(
        .invalidName, action, path: path,
        context: "\(place): it differs from '\(sibling)' only in \(reason), which \(onFileSystem) does not tell apart")
    }
    return PackageError(.invalidName, action, path: path, context: "\(place): \(reason) on \(onFileSystem)")
  }
}
