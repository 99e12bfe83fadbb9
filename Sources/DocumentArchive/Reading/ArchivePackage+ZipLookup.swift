import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivePackage {
  /// The contents of the file at `entryPath` in the zip at `archive`, found through the zip's central
  /// directory without building the archive's tree: what `docpkg cat ARCHIVE.zip ENTRY` reads.
  ///
  /// `entryPath` is relative to the root ``open(_:unwrappingSingleDirectory:limits:)`` would return (the single
  /// top-level directory when there is one). The returned source reads the entry's local header, then
  /// its stored or deflated data, and checks its CRC-32 and size; memory is bounded by the chunk size.
  ///
  /// Returns `nil` whenever the answer needs the full reader: `archive` is not a readable zip, or
  /// anything in the archive is unusual (see `ZipDirectoryScan`: encrypted entries, other methods,
  /// names the archive walk would refuse or decode differently, links, possible duplicates, a damaged
  /// central directory). The caller then opens the archive with `PackageNode.open(location:)`, which
  /// gives the same bytes or the same error as before.
  /// - Throws: ``/DocumentPackage/PackageError`` when the path is not a file there: exactly the error
  ///   that opening the archive, looking the path up with ``/DocumentPackage/PackageNode/node(at:)`` and
  ///   reading it would throw (`noSuchEntry`, `notADirectory`, `notARegularFile`).
  /// - Complexity: One pass over the central directory, comparing the names' bytes; memory for the
  ///   distinct paths' bytes.
  package static func zipFileContents(at entryPath: String, in archive: FilePath) throws -> (any FileContentSource)? {
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
    let wantedBytes = Array(wanted.joined(separator: "/").utf8)
    var scan = ZipDirectoryScan()
    let slash = UInt8(ascii: "/")
    let summary = wantedBytes.withUnsafeBytes { target in
      let targetIsASCII = ZipPathTable.isASCII(target)
      return scan.run(fd: fd, fileSize: status.size, archive: archive.string) { header, path in
        if targetIsASCII, ZipPathTable.isASCII(path) {
          // The common case, on bytes: the path itself, or one name, a `/`, then the path.
          if path.count == target.count {
            if Syscalls.bytesEqual(path, target) { atTop = header.entry() }
          } else if path.count > target.count + 1, path[path.count - target.count - 1] == slash,
            Syscalls.bytesEqual(UnsafeRawBufferPointer(rebasing: path[(path.count - target.count)...]), target),
            ZipPathTable.firstSlash(in: path) == path.count - target.count - 1
          {
            belowTop = header.entry()
          }
          return
        }
        // Names compared as the tree compares them (canonical equivalence).
        if ZipDirectoryScan.namesEqual(path, target) { atTop = header.entry() }
        if let first = ZipPathTable.firstSlash(in: path),
          ZipDirectoryScan.namesEqual(UnsafeRawBufferPointer(rebasing: path[(first + 1)...]), target)
        {
          belowTop = header.entry()
        }
      }
    }
    guard let summary else { return nil }
    guard let found = summary.singleTopDirectory != nil ? belowTop : atTop, !found.isDirectory else {
      try throwLookupError(for: entryPath, wanted, scan: &scan, below: summary.singleTopDirectory)
      return nil
    }
    handedOver = true
    return ZipEntrySource(file: ZipArchiveFile(fd: fd, path: archive.string), entry: found)
  }

  /// Throws what looking `entryPath` up in the archive's tree, then reading it, would throw: the
  /// tree's own error, from a tree holding only the nodes on the way that the scan met.
  private static func throwLookupError(
    for entryPath: String, _ components: [String], scan: inout ZipDirectoryScan, below top: String?
  ) throws {
    let root = try PackageNode(directoryWithChildren: [:])
    var directory = root
    for index in components.indices {
      switch scan.kind(of: Array(components[...index]), below: top) {
      case .directory?:
        let child = try PackageNode(directoryWithChildren: [:])
        try directory.replaceChild(named: components[index], with: child)
        directory = child
        continue
      case .file?:
        try directory.replaceChild(named: components[index], with: PackageNode(regularFileWithContents: Data()))
      case nil: break
      }
      break
    }
    // Throws for a path that is missing, goes through a file, or names a directory.
    try root.node(at: entryPath).readContents(chunkSize: 1) { _ in }
  }
}
