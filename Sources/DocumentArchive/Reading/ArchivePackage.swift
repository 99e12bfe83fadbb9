import DocumentPackage
import SystemPackage

/// Reads an archive in place as a package tree, without extracting it.
///
///     let package = try ArchivePackage.open("/tmp/Trip.zip")
///     let text = try package.node(at: "Index.json").contents()
///
/// The tree is built from the archive's headers (for a compressed tar that is one pass of
/// decompression); for a zip whose central directory settles everything, that directory is kept as a
/// compact index and each directory's nodes are made when it is listed. Files read their bytes from
/// the archive when asked, through one archive handle shared by the tree: reading them in archive order (the order ``/DocumentPackage/PackageNode/walk(maxDepth:_:)``
/// visits an archive `docpkg` packed) is a single pass over the archive.
public enum ArchivePackage {
  /// Opens the archive at `path` as a tree of nodes.
  ///
  /// The root is the archive's top-level directory when it has exactly one; otherwise (several
  /// top-level entries, or a document zip such as an ODF or EPUB file) a directory named after the
  /// archive that holds them. Entries are judged by the same rules as ``ArchiveUnpacker`` judges
  /// them (unsafe names, duplicates, entries below links or files, devices and FIFOs, hard links
  /// not to an earlier file, symbolic links that are absolute or lead out of the package are refused, with the same
  /// errors); a hard link reads its target's contents.
  /// - Parameters:
  ///   - path: The archive: a zip or a (compressed) tar.
  ///   - unwrappingSingleDirectory: Return the single top-level directory as the root
  ///     (the default: a packed package). `false` always returns a root named after the archive
  ///     that holds the top-level entries (a zip nested in a package, such as iWork's `Index.zip`).
  ///   - limits: When given, the tree is refused as ``ArchiveUnpacker`` would refuse to extract it under these
  ///     limits (too many entries, or entries whose sizes add up past the total or the compression ratio: a zip
  ///     bomb), judged by the sizes the entries declare; `nil` (the default) checks none.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the archive (and the entry) if it is not a supported archive,
  ///   is damaged, has an unsafe or duplicate entry, or exceeds `limits`.
  /// - Complexity: O(*n*) for *n* entries to open; reading all files in archive order is O(archive size). Memory:
  ///   for such a zip, about 50 bytes per entry and the nodes of the directories listed; otherwise the whole tree.
  public static func open(
    _ path: FilePath, unwrappingSingleDirectory: Bool = true, limits: UnpackLimits? = nil
  ) throws -> PackageNode {
    // A zip whose central directory settles everything: an index of it, and no libarchive pass over the local headers.
    if let tree = try zipTree(of: path, unwrappingSingleDirectory: unwrappingSingleDirectory, limits: limits) {
      return tree
    }
    let tree = try openUnchecked(path, unwrappingSingleDirectory: unwrappingSingleDirectory)
    if let limits { try check(tree, of: path, against: limits) }
    return tree
  }

  /// Refuses `tree`, read from the archive at `path`, if extracting it would exceed `limits`.
  private static func check(_ tree: PackageNode, of path: FilePath, against limits: UnpackLimits) throws {
    let archiveSize = (try? Syscalls.statusFollowing(path).size) ?? 0
    var (entries, expanded) = (0, Int64(0))
    try tree.walk { node, nodePath, _ in
      guard !nodePath.isEmpty else { return true }  // the root, which the archive may not hold
      entries += 1
      try limits.checkEntryCount(entries, archive: path.string)
      if node.kind == .file {
        expanded += node.size
        try limits.checkExpansion(expanded, archiveSize: archiveSize, archive: path.string, entry: nodePath)
      }
      return true
    }
  }

  private static func openUnchecked(_ path: FilePath, unwrappingSingleDirectory: Bool) throws -> PackageNode {
    let reader = try ArchiveReader(path: path.string)
    var walk = ArchiveWalk(reader: reader, wrappingDocumentIn: nil)
    let cursor = ArchiveCursor(path: path.string, format: reader.format)
    let holder = try PackageNode(
      directoryWithChildren: [:], preferredName: ArchiveUnpacker.documentFolderName(for: path))
    var builder = ArchiveTreeBuilder(root: holder)
    var links: [(components: [String], destination: String)] = []
    while let entry = try walk.next() {
      // The cursor counts every header, the archive's root (`./`) that the walk passes over too.
      cursor.names += repeatElement(nil, count: entry.index - cursor.names.count)
      cursor.names.append(entry.header.displayName)
      let content = try entry.accepted()
      try builder.add(entry, content, cursor: cursor)
      if case .symbolicLink(let destination) = content { links.append((entry.components, destination)) }
    }
    // Symbolic links by unpack's rule, once every entry is known: reading in place refuses what unpacking refuses.
    var check = SymlinkCheck(rootIsPackage: walk.isDocument)
    for link in links { check.links[link.components.joined(separator: "/")] = link.destination }
    try check.validate(archive: reader.path, topLevel: Set(try holder.sortedChildren().map(\.name)))
    // One top-level directory: that is the package.
    let top = try holder.sortedChildren()
    if unwrappingSingleDirectory, top.count == 1, top[0].kind == .directory, !walk.isDocument {
      let package = top[0]
      try holder.removeChild(package)
      return package
    }
    return holder
  }
}

/// Builds a ``/DocumentPackage/PackageNode`` tree from the accepted entries of an ``ArchiveWalk``: the reading-in-place
/// consumer of the walk (``Extractor`` is the one that writes to disk).
private struct ArchiveTreeBuilder {
  private var directories: [String: PackageNode]
  /// Files by path, for hard links: their entry's index and size, and their node.
  private var files: [String: (index: Int, size: Int64, node: PackageNode)] = [:]

  init(root: PackageNode) { directories = ["": root] }

  /// The directory at `components`, creating it (and those above it) if needed, a level at a time
  /// down from the deepest one that exists.
  private mutating func directory(_ components: ArraySlice<String>) throws -> PackageNode {
    var paths: [String] = []  // of each level
    for component in components { paths.append(paths.isEmpty ? component : paths.last! + "/" + component) }
    var level = paths.count  // the levels below this one are still to make
    while level > 0, directories[paths[level - 1]] == nil { level -= 1 }
    var node = level == 0 ? directories[""]! : directories[paths[level - 1]]!
    for index in level..<paths.count {
      let child = try PackageNode(directoryWithChildren: [:])
      try node.replaceChild(named: components[components.startIndex + index], with: child)
      directories[paths[index]] = child
      node = child
    }
    return node
  }

  mutating func add(_ entry: WalkedEntry, _ content: WalkedEntry.Content, cursor: ArchiveCursor) throws {
    let components = entry.components
    let header = entry.header
    let node: PackageNode
    switch content {
    case .identicalDuplicate:
      return
    case .directory:
      node = try directory(components[...])
    case .symbolicLink(let destination):
      node = PackageNode(symbolicLinkWithDestination: destination)
      try directory(components.dropLast()).replaceChild(named: components.last!, with: node)
    case .hardLink(let target):
      let file = files[target.joined(separator: "/")]!  // the walk accepts links to files accepted before
      node = PackageNode(regularFileWithSource: ArchiveEntrySource(cursor: cursor, index: file.index, size: file.size))
      try directory(components.dropLast()).replaceChild(named: components.last!, with: node)
      files[entry.path] = file
      // One file under two names, as unpacking makes it: the target's mode and time, whatever the link's header says.
      node.permissions = file.node.permissions
      node.modificationTime = file.node.modificationTime
      return
    case .file:
      let size = header.size ?? 0
      node = PackageNode(regularFileWithSource: ArchiveEntrySource(cursor: cursor, index: entry.index, size: size))
      try directory(components.dropLast()).replaceChild(named: components.last!, with: node)
      files[entry.path] = (entry.index, size, node)
    }
    node.permissions = FilePermissions(
      rawValue: CInterop.Mode(header.kind == .symlink ? 0o777 : header.mode & EntryPolicy.keptPermissions))
    if let time = header.modificationTime { node.modificationTime = time }
  }
}
