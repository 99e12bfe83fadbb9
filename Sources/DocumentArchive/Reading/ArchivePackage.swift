import DocumentPackage
import SystemPackage

/// Reads an archive in place as a package tree, without extracting it.
///
///     let package = try ArchivePackage.open("/tmp/Trip.zip")
///     let text = try package.node(at: "Index.json").contents()
///
/// The tree is built from the archive's headers (for a compressed tar that is one pass of
/// decompression). Files read their bytes from the archive when asked, through one archive
/// handle shared by the tree: reading them in archive order (the order ``PackageNode/walk(maxDepth:_:)``
/// visits an archive `docpkg` packed) is a single pass over the archive.
public enum ArchivePackage {
  /// Opens the archive at `path` as a tree of nodes.
  ///
  /// The root is the archive's top-level directory when it has exactly one; otherwise (several
  /// top-level entries, or a document zip such as an ODF or EPUB file) a directory named after the
  /// archive that holds them. Names are checked as ``ArchiveUnpacker`` checks them; devices and
  /// FIFOs are refused; a hard link reads its target's contents.
  /// - Parameter unwrappingSingleDirectory: Return the single top-level directory as the root
  ///   (the default: a packed package). `false` always returns a root named after the archive
  ///   that holds the top-level entries (a zip nested in a package, such as iWork's `Index.zip`).
  /// - Throws: ``PackageError`` naming the archive (and the entry) if it is not a supported archive,
  ///   is damaged, or has an unsafe or duplicate entry.
  /// - Complexity: O(*n*) for *n* entries to open; reading all files in archive order is O(archive size).
  public static func open(_ path: FilePath, unwrappingSingleDirectory: Bool = true) throws -> PackageNode {
    let reader = try ArchiveReader(path: path.string)
    let cursor = ArchiveCursor(path: path.string, format: reader.format)
    let holder = try PackageNode(directoryWithChildren: [:], preferredName: ArchiveUnpacker.documentFolderName(for: path))
    var directories: [String: PackageNode] = ["": holder]
    var files: [String: (index: Int, size: Int64)] = [:]
    var explicit: Set<String> = []
    var index = -1

    func directory(_ components: ArraySlice<String>, header: EntryHeader) throws -> PackageNode {
      let key = components.joined(separator: "/")
      if let node = directories[key] { return node }
      let parent = try directory(components.dropLast(), header: header)
      if try parent.child(named: components.last!) != nil {
        throw refuse(header, "'\(key)' is not a directory", archive: path.string)
      }
      let node = try PackageNode(directoryWithChildren: [:])
      try parent.replaceChild(named: components.last!, with: node)
      directories[key] = node
      return node
    }

    while let header = try reader.next() {
      index += 1
      cursor.names.append(header.displayName)
      let components = try EntryPolicy.components(of: header, archive: path.string)
      let key = components.joined(separator: "/")
      let parent = try directory(components.dropLast(), header: header)
      let name = components.last!
      if header.kind == .directory, directories[key] != nil, !explicit.contains(key) {
        // Described after entries below it.
      } else if try parent.child(named: name) != nil {
        throw refuse(header, "a second entry has the same path", archive: path.string)
      }
      let node: PackageNode
      switch header.kind {
      case .special(let what):
        throw refuse(header, "it is a \(what); only files, directories and links are read", archive: path.string)
      case .directory:
        node = try directory(components[...], header: header)
        explicit.insert(key)
      case .symlink:
        node = PackageNode(symbolicLinkWithDestination: header.linkTarget ?? "")
        try parent.replaceChild(named: name, with: node)
      case .hardlink:
        guard let target = header.linkTarget, let file = files[target] else {
          throw refuse(header, "it is a hard link to '\(header.linkTarget ?? "")', which is not a file before it", archive: path.string)
        }
        node = PackageNode(regularFileWithSource: ArchiveEntrySource(cursor: cursor, index: file.index, size: file.size))
        try parent.replaceChild(named: name, with: node)
        files[key] = file
      case .file:
        let size = header.size ?? 0
        node = PackageNode(regularFileWithSource: ArchiveEntrySource(cursor: cursor, index: index, size: size))
        try parent.replaceChild(named: name, with: node)
        files[key] = (index, size)
      }
      node.permissions = FilePermissions(rawValue: CInterop.Mode(header.kind == .symlink ? 0o777 : header.mode & 0o7777))
      if let time = header.modificationTime { node.modificationTime = time }
    }
    // One top-level directory: that is the package.
    let top = try holder.sortedChildren()
    let isDocument = cursor.names.first == "mimetype"
    if unwrappingSingleDirectory, top.count == 1, top[0].kind == .directory, !isDocument {
      let package = top[0]
      try holder.removeChild(package)
      return package
    }
    return holder
  }

  private static func refuse(_ header: EntryHeader, _ reason: String, archive: String) -> PackageError {
    PackageError(.corrupt, "refusing entry", path: header.displayName, context: "in '\(archive)': \(reason)")
  }
}
