import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lists one directory of a stored version from its tree object, when the directory is first
/// asked for its children: a version read this way reads the trees on the paths a caller walks,
/// and makes no node below the directories it visits (`docpkg versions show PKG ID ENTRY` of a
/// package of a million files reads two small trees, not a million lines).
///
/// Each listing reads the tree object, checks it against its hash (a tree cannot name itself, so
/// no chain of trees loops) and makes the directory's children: files read from the store's blobs
/// (``VersionBlob``), links, and directories listed by a listing of their own. A path walk asks
/// for one name (``child(named:)``) and gets that entry's node alone, the others not parsed.
/// ``VersionStore/tree(of:)`` lists every directory at once; ``VersionStore/treeListedLazily(of:)``
/// leaves them to the walk.
final class VersionTreeListing: DirectoryListingSource, ContentAddressed {
  let store: VersionStore
  let version: Int
  /// The directory's tree object.
  let hash: String
  /// The directory's path in the version (empty for its root), for the damage report.
  let path: String

  /// The store's path and the tree's hash: one subtree, wherever it is in whichever version of the store.
  var contentAddress: String { store.path.string + "#" + hash }

  init(store: VersionStore, version: Int, hash: String, path: String) {
    self.store = store
    self.version = version
    self.hash = hash
    self.path = path
  }

  func listChildren() throws -> [PackageNode] {
    guard let entries = TreeEntry.parse(try object()) else { throw damaged() }
    var children = entries.map(node)
    // Written in the bytes of their names' order; sorted again only if a tree was not.
    if !zip(children, children.dropFirst()).allSatisfy({ $0.name.utf8Precedes($1.name) }) {
      children.sort { $0.name.utf8Precedes($1.name) }
    }
    return children
  }

  /// The entry called `name` alone: its line found by its last field (names are escaped, so no
  /// field holds a space or a line break) and parsed, not the others. The object is still read
  /// whole and checked against its hash. Nil (the directory is then listed) if no line ends so.
  func child(named name: String) throws -> PackageNode? {
    let field = Array((" " + VersionEscaping.escape(name) + "\n").utf8)
    let line = try object().withUnsafeBytes { raw -> String? in
      let bytes = raw.bindMemory(to: UInt8.self)
      guard let end = Self.offset(of: field, in: bytes) else { return nil }
      var start = end
      while start > 0, bytes[start - 1] != 10 { start -= 1 }
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(end + field.count - 1)]), as: UTF8.self)
    }
    guard let line, let entry = TreeEntry(line: line[...]), entry.name == name else { return nil }
    return node(entry)
  }

  /// The entries that differ between this tree and `other`'s, when both are trees of one store: the two
  /// objects' lines compared as bytes, and only the lines found on one side alone parsed into nodes. Two
  /// versions differing in one file of a folder of a thousand parse two lines of it, not two thousand.
  func childrenDiffering(from other: any ContentAddressed) throws -> (mine: [PackageNode], others: [PackageNode])? {
    guard let other = other as? VersionTreeListing, other.store.path == store.path else { return nil }
    let (mine, others) = TreeEntry.linesDiffering(try object(), try other.object())
    func nodes(_ lines: [String], _ listing: VersionTreeListing) throws -> [PackageNode] {
      var entries: [TreeEntry] = []
      for line in lines {
        guard let entry = TreeEntry(line: line[...]) else { throw listing.damaged() }
        entries.append(entry)
      }
      return entries.sorted { $0.name.utf8Precedes($1.name) }.map(listing.node)
    }
    return (try nodes(mine, self), try nodes(others, other))
  }

  /// Where `needle` first starts in `bytes`, if it does.
  private static func offset(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let first = needle.first, needle.count <= bytes.count else { return nil }
    var index = 0
    while index <= bytes.count - needle.count {
      if bytes[index] == first {
        var matched = 1
        while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
        if matched == needle.count { return index }
      }
      index += 1
    }
    return nil
  }

  /// The tree object's bytes, checked against its hash.
  private func object() throws -> Data {
    guard let data = try? StoreFiles.read(store.objectPath(hash)), ContentHash.of(data) == hash else {
      throw damaged()
    }
    return data
  }

  /// The error for a tree object missing or damaged: removed with its version meanwhile, or named where it was met.
  private func damaged() -> PackageError {
    if let removed = store.removedWhileReading(version) { return removed }
    let damage = StoredTreeDamage(root: "version \(version)", path: path, hash: hash)
    return PackageError(
      .corrupt, "version tree object is missing or damaged", path: store.objectPath(hash).string,
      context: "(\(damage.place))")
  }

  /// The node of one entry of this directory, made without a parent.
  private func node(_ entry: TreeEntry) -> PackageNode {
    // A directory's line carries no time (see TreeEntry): it gets the time it is saved.
    let time = entry.kind == .directory && entry.time == TreeEntry.directoryTime ? nil : entry.time
    switch entry.kind {
    case .directory:
      let listing = VersionTreeListing(
        store: store, version: version, hash: entry.reference,
        path: path.isEmpty ? entry.name : path + "/" + entry.name)
      return PackageNode(
        directoryListedBy: listing, name: entry.name, permissions: entry.permissions, modificationTime: time)
    case .file:
      let blob = VersionBlob(store: store, hash: entry.reference, size: entry.size, version: version)
      return PackageNode(
        listedFileWithSource: blob, name: entry.name, permissions: entry.permissions, modificationTime: time)
    case .symlink:
      let link = PackageNode(listedSymbolicLinkTo: entry.reference, name: entry.name, modificationTime: time)
      link.storedPermissions = entry.permissions
      return link
    }
  }
}

extension VersionStore {
  /// The version `id` as a tree of nodes made in memory, its files read from the store (lazily,
  /// each checked against its SHA-256). Changing the tree changes nothing in the store; it can be
  /// saved elsewhere (``PackageNode/write(to:originalContentsPath:)``) or restored.
  ///
  /// Reading a version takes no lock: a save that prunes it, or `versions remove`, can remove it
  /// while it is read. What was read stays valid; a later read fails with `noSuchEntry`,
  /// "version 3 of 'Trip.mydoc' was removed while it was being read" (never a `corrupt` error).
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version or one removed
  ///   meanwhile, `corrupt` for a damaged or missing tree object.
  /// - Complexity: O(*n*) for the version's *n* entries (one small read per directory).
  public func tree(of id: Int) throws -> PackageNode {
    let root = try treeListedLazily(of: id)
    try root.listEverythingFromSources()
    return root
  }

  /// The version `id` as ``tree(of:)`` makes it, each directory's tree object read when the
  /// directory is first listed (see ``VersionTreeListing``): what `docpkg cat`, `inspect` and `diff`
  /// read a `PACKAGE@ID` as.
  /// - Throws: As ``tree(of:)``; a damaged tree object below the root when its directory is listed.
  /// - Complexity: One record read; each directory listed costs its tree object.
  package func treeListedLazily(of id: Int) throws -> PackageNode {
    let record = try record(id)
    // Named as the package, as a tree read from disk is: an archive of it has the package as its top entry.
    return PackageNode(
      directoryListedBy: VersionTreeListing(store: self, version: id, hash: record.rootTree, path: ""),
      name: packagePath.lastComponent?.string ?? "", permissions: record.rootPermissions,
      modificationTime: record.rootTime)
  }
}
