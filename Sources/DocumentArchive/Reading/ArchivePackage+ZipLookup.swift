import DocumentPackage
import SystemPackage

extension ArchivePackage {
  /// The contents of the file at `entryPath` in the zip at `archive`, found through the zip's central
  /// directory without building the archive's tree: what `docpkg cat ARCHIVE.zip ENTRY` reads.
  ///
  /// `entryPath` is relative to the root ``open(_:unwrappingSingleDirectory:)`` would return (the single
  /// top-level directory when there is one). The returned source reads the entry's local header, then
  /// its stored or deflated data, and checks its CRC-32 and size; memory is bounded by the chunk size.
  ///
  /// Returns `nil` whenever the answer needs the full reader: `archive` is not a readable zip, the
  /// path is not a plain file there (missing, a directory, below a file), or anything in the archive
  /// is unusual (see `ZipDirectoryScan`: encrypted entries, other methods, names the archive walk
  /// would refuse or decode differently, links, possible duplicates, a damaged central directory).
  /// The caller then opens the archive with `PackageNode.open(location:)`, which
  /// gives the same bytes or the same error as before.
  /// - Complexity: One pass over the central directory; O(distinct paths) hashes of memory.
  public static func zipFileContents(at entryPath: String, in archive: FilePath) -> (any FileContentSource)? {
    var wanted: [String] = []
    for part in entryPath.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
      guard part != ".." else { return nil }
      wanted.append(String(part))
    }
    guard !wanted.isEmpty, ArchiveFormat(contentsOf: archive) == .zip,
      let fd = try? Syscalls.openFile(archive, .readOnly)
    else { return nil }
    var handedOver = false
    defer { if !handedOver { Syscalls.closeFile(fd) } }
    guard let status = try? Syscalls.status(of: fd), status.kind == .file else { return nil }
    // Candidates for both possible roots: the archive's top level, and its single top directory.
    var atTop: ZipCentralDirectory.Entry?
    var belowTop: ZipCentralDirectory.Entry?
    let summary = ZipDirectoryScan.run(fd: fd, fileSize: status.size, archive: archive.string) { entry, components in
      if components == wanted {
        atTop = entry
      } else if components.count == wanted.count + 1, components.dropFirst().elementsEqual(wanted) {
        belowTop = entry
      }
    }
    guard let summary, let found = summary.singleTopDirectory != nil ? belowTop : atTop, !found.isDirectory
    else { return nil }
    guard let source = ZipEntrySource(fd: fd, entry: found, archive: archive.string) else { return nil }
    handedOver = true
    return source
  }
}
