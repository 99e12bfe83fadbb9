import DocumentPackage
import SystemPackage

/// Reads an archive in place as a package tree, without extracting it.
///
///     let package = try ArchivePackage.open("/tmp/Trip.zip")
///     let text = try package.node(at: "Index.json").contents()
///
/// The archive's entries are read into a compact index (about 50 bytes an entry): from a zip's central
/// directory when it settles everything, otherwise from the archive's headers (for a compressed tar
/// that is one pass of decompression; the table of the paths the walk accepted becomes the index); each directory's nodes are made when it is listed. Files read their bytes from
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
  ///   about 60 bytes per entry and the nodes of the directories listed.
  public static func open(
    _ path: FilePath, unwrappingSingleDirectory: Bool = true, limits: UnpackLimits? = nil
  ) throws -> PackageNode {
    // A zip whose central directory settles everything: an index of it, and no libarchive pass over the local headers.
    if let tree = try zipTree(of: path, unwrappingSingleDirectory: unwrappingSingleDirectory, limits: limits) {
      return tree
    }
    return try openUnchecked(path, unwrappingSingleDirectory: unwrappingSingleDirectory, limits: limits)
  }

  /// Opens the archive at `path` as ``open(_:unwrappingSingleDirectory:limits:)`` does, and keeps the bytes of the
  /// file at `entry` (a path below the root, `/`-separated) as the walk passes it, when they are at most
  /// ``ArchiveCursor/cacheLimit``: reading that file then reads the archive no further. What `docpkg cat` of a tar
  /// reads: every header is still judged before a byte is written, in one pass where reading the file took a second
  /// pass up to it.
  package static func open(_ path: FilePath, keepingContentsOf entry: String) throws -> PackageNode {
    if let tree = try zipTree(of: path, unwrappingSingleDirectory: true, limits: nil) { return tree }
    let wanted = entry.split(separator: "/").map(String.init).filter { $0 != "." }
    return try openUnchecked(path, unwrappingSingleDirectory: true, limits: nil, keeping: wanted)
  }

  private static func openUnchecked(
    _ path: FilePath, unwrappingSingleDirectory: Bool, limits: UnpackLimits?, keeping wanted: [String] = []
  ) throws -> PackageNode {
    let reader = try ArchiveReader(path: path.string)
    var walk = ArchiveWalk(reader: reader, wrappingDocumentIn: nil)
    let cursor = ArchiveCursor(path: path.string, format: reader.format)
    var links: [(components: [String], destination: String)] = []
    while let entry = try walk.next() {
      cursor.expect(entry.header.displayName, at: entry.index)
      let content = try entry.accepted()
      if case .symbolicLink(let destination) = content { links.append((entry.components, destination)) }
      // The wanted file, below the single top-level folder the root will be, or at the top level.
      if case .file = content, !wanted.isEmpty,
        entry.components == wanted || entry.components.dropFirst().elementsEqual(wanted)
      {
        _ = try cursor.keep(
          entry: entry.index, size: entry.header.size, limit: Int64(ArchiveCursor.cacheLimit), from: reader)
      }
    }
    cursor.headerScan = reader.sharedScan
    let index = walk.index(contents: .entries(cursor))
    // Symbolic links by unpack's rule, once every entry is known: reading in place refuses what unpacking refuses.
    var check = SymlinkCheck(rootIsPackage: walk.isDocument)
    for link in links { check.links[link.components.joined(separator: "/")] = link.destination }
    let top = index.children(of: 0)
    try check.validate(archive: reader.path, topLevel: Set(top.map { index.name(of: Int($0)) }))
    return try index.root(
      of: path, unwrappingSingleDirectory: unwrappingSingleDirectory && !walk.isDocument, limits: limits)
  }
}
