import DocumentPackage
import SystemPackage

/// The top level of a zip read from its central directory alone, with the whole archive's totals:
/// what `docpkg inspect ARCHIVE.zip --depth 1` shows. See `ArchivePackage.zipTopLevel(of:)`.
package struct ArchiveTopLevel {
  /// The root ``ArchivePackage/open(_:unwrappingSingleDirectory:limits:)`` would return, with the same name
  /// and permissions, holding only its children: the directories among them are empty here, and
  /// modification times are not set. Its files read their contents from the archive when asked.
  package let root: PackageNode
  /// The files in the whole archive.
  package let files: Int
  /// The directories in the whole archive below the root, described or implied by entries below them.
  package let directories: Int
  /// The files' bytes, uncompressed.
  package let bytes: Int64
}

extension ArchivePackage {
  /// The top level of the zip at `archive` and the whole archive's totals, from one pass over its
  /// central directory, without building the archive's tree.
  ///
  /// Returns `nil` whenever the answer needs the full reader (not a readable zip, or anything unusual,
  /// as for `zipFileContents(at:in:)`; also an entry not made on Unix, whose permissions libarchive
  /// derives otherwise): the caller then opens the archive with ``open(_:unwrappingSingleDirectory:limits:)``.
  /// - Complexity: One pass over the central directory; memory for the distinct paths.
  package static func zipTopLevel(of archive: FilePath) -> ArchiveTopLevel? {
    guard ArchiveFormat(contentsOf: archive) == .zip, let fd = try? Syscalls.openFile(archive, .readOnly) else {
      return nil
    }
    let file = ZipArchiveFile(fd: fd, path: archive.string)  // closes `fd`; shared by the files' sources
    guard let status = try? Syscalls.status(of: fd), status.kind == .file else { return nil }
    // The children of both possible roots: the archive's top level, and its single top directory.
    var atTop = TopLevelChildren()
    var belowTop = TopLevelChildren()
    var topMode: UInt32?
    var scan = ZipDirectoryScan()
    let summary = scan.run(fd: fd, fileSize: status.size, archive: archive.string) { header, path in
      atTop.add(header, path)
      if let first = ZipPathTable.firstSlash(in: path) {
        belowTop.add(header, UnsafeRawBufferPointer(rebasing: path[(first + 1)...]))
      } else if header.isDirectory {
        topMode = header.externalAttributes >> 16
      }
    }
    guard let summary, summary.allUnixModes else { return nil }
    do {
      let holder = try PackageNode(
        directoryWithChildren: [:], preferredName: ArchiveUnpacker.documentFolderName(for: archive))
      guard let top = summary.singleTopDirectory else {
        try atTop.build(into: holder, file: file)
        return ArchiveTopLevel(
          root: holder, files: summary.files, directories: summary.directories, bytes: summary.bytes)
      }
      // As the tree builder does: the directory made inside the holder, then taken out as the root.
      let root = try PackageNode(directoryWithChildren: [:])
      try holder.replaceChild(named: top, with: root)
      if let topMode {
        root.permissions = FilePermissions(rawValue: CInterop.Mode(topMode & EntryPolicy.keptPermissions))
      }
      try belowTop.build(into: root, file: file)
      try holder.removeChild(root)
      return ArchiveTopLevel(
        root: root, files: summary.files, directories: summary.directories - 1, bytes: summary.bytes)
    } catch { return nil }
  }
}

/// The children of one directory collected from a scan: each file's entry, each directory's mode as
/// last described (`nil` while only implied). A `String` is made once per distinct child name: an
/// entry below the child named just before is recognized on bytes.
private struct TopLevelChildren {
  enum Child {
    case file(ZipCentralDirectory.Entry)
    case directory(mode: UInt32?)
  }
  var children: [String: Child] = [:]
  /// The name of the directory child that the last entry below a child was below.
  private var lastImplied: [UInt8] = []

  /// Records the entry whose normalized path below this directory is `path`.
  mutating func add(_ header: ZipCentralDirectory.Header, _ path: UnsafeRawBufferPointer) {
    let slash = ZipPathTable.firstSlash(in: path)
    let nameBytes = UnsafeRawBufferPointer(rebasing: path[..<(slash ?? path.count)])
    if slash != nil {
      // Below a child: that child is a directory, recorded already if it was the last one.
      if lastImplied.withUnsafeBytes({ Syscalls.bytesEqual($0, nameBytes) }) { return }
      lastImplied = Array(nameBytes)
      let name = String(decoding: nameBytes, as: UTF8.self)
      if children[name] == nil { children[name] = .directory(mode: nil) }
      return
    }
    let name = String(decoding: nameBytes, as: UTF8.self)
    if header.isDirectory {
      children[name] = .directory(mode: header.externalAttributes >> 16)
    } else {
      children[name] = .file(header.entry())
    }
  }

  /// Adds the children to `directory` as the archive's tree builder would, with their permissions.
  func build(into directory: PackageNode, file: ZipArchiveFile) throws {
    for (name, child) in children {
      let node: PackageNode
      let mode: UInt32?
      switch child {
      case .file(let entry):
        node = PackageNode(regularFileWithSource: ZipListedEntrySource(file: file, entry: entry))
        mode = entry.externalAttributes >> 16
      case .directory(let described):
        node = try PackageNode(directoryWithChildren: [:])
        mode = described
      }
      try directory.replaceChild(named: name, with: node)
      if let mode { node.permissions = FilePermissions(rawValue: CInterop.Mode(mode & EntryPolicy.keptPermissions)) }
    }
  }
}
