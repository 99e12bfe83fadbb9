import DocumentPackage
import SystemPackage

/// One entry to write, flattened from the package tree before anything is written.
struct PackEntry: Sendable {
  enum Source: Sendable {
    /// Directories and links have no contents.
    case none
    /// A file read from disk (unchanged since loaded), below the package's root without following links.
    case disk(DiskFile)
    /// A file whose contents live in the model (changed in memory, or in an archive): the index
    /// of its node in ``PackPlan/nodes``.
    case node(Int)

    /// A file on disk, when it is read from there.
    var diskFile: DiskFile? {
      if case .disk(let file) = self { return file }
      return nil
    }
  }

  /// The path in the archive, `/`-separated, without a trailing slash. Bytes of a name that is not
  /// UTF-8 (only a tar can hold one) are the raw-byte scalars of ``EntryName``.
  var name: String
  var kind: NodeKind
  /// Permission bits (set-id and sticky included).
  var mode: UInt32
  var modificationTime: FileTime
  var size: Int64
  var linkDestination: String
  var source: Source
}

/// The entries of a package in archive order, made one at a time as they are written, so that
/// packing 100,000 files holds neither a list of 100,000 entries nor the package's whole tree.
///
/// A directory the model has not listed yet (every directory of a package opened from disk and not
/// walked) is listed from disk for the walk and its listing dropped after it
/// (``PackageNode/sortedChildrenListedAnew()``): the entries are exactly those the model would list
/// (the same listing code, names and errors, below the package's root without following links),
/// but the model does not keep them. Directories the model has listed are walked in the model, so
/// changes made in memory are packed. Two walks: the first counts the entries and bytes (the
/// progress totals), the second, ``forEach(_:)``, makes the entries.
/// - Complexity: Memory is the listings of the directories on the path being walked.
final class PackPlan {
  /// The number of entries ``forEach(_:)`` makes.
  private(set) var entryCount = 0
  /// The files' bytes.
  private(set) var totalBytes: Int64 = 0
  /// The nodes of files whose contents only the model has, indexed by ``PackEntry/Source/node(_:)``;
  /// filled as ``forEach(_:)`` meets them.
  private(set) var nodes: [PackageNode] = []
  /// A document zip: the root's children are the top-level entries, `mimetype` first.
  let documentLayout: Bool
  /// What is not packed, in archive order: the FIFOs, sockets and devices in the package's folders on disk (which
  /// the model passes over), and the symbolic links unpacking would refuse.
  private(set) var skipped: [PackReport.Skipped] = []
  /// The files that are hard links to a file packed before them, stored again in full.
  private(set) var copies: [PackReport.Copy] = []
  /// The symbolic links left out, by name in the archive.
  private var skippedLinks: Set<String> = []
  /// The entries left out for their names, with everything below them, by name in the archive.
  private var skippedNames: Set<String> = []

  private let root: PackageNode
  /// The package roots the files read from disk are opened below, each opened once.
  private let diskRoots = DiskFileRoots()
  private let format: ArchiveFormat
  private let prefix: String
  private let now: FileTime
  private let fixedTime: Int64?

  /// Plans `root`'s entries in sorted order. The root is the archive's top-level entry, except for a
  /// document zip (a `mimetype` file at the root, as in ODF and EPUB): then the root's children are
  /// the top-level entries and `mimetype` comes first.
  ///
  /// The walk stops at the next entry when `cancellation` is cancelled: on a large package the plan,
  /// which lists every directory, takes as long as reading the tree.
  /// - Throws: ``/DocumentPackage/PackageError`` if a directory cannot be listed, or an entry's name
  ///   could not be read back from the archive (``EntryPolicy``: control characters, too long, not
  ///   UTF-8 in a zip), before anything is written; code `cancelled`, naming `output`, when cancelled.
  init(
    root: PackageNode, format: ArchiveFormat, fixedTime: Int64?, cancellation: ArchiveCancellation? = nil,
    output: String = "-"
  ) throws {
    self.root = root
    self.format = format
    self.fixedTime = fixedTime
    now = FileTime(seconds: Int64(Syscalls.currentTime))
    let mimetype = root.kind == .directory ? try root.child(named: "mimetype") : nil
    documentLayout = format == .zip && mimetype?.kind == .file
    prefix = documentLayout ? "" : Self.archiveName(of: root)
    var links = SymlinkCheck(rootIsPackage: documentLayout)
    var linkOrder: [(name: String, position: Int)] = []  // in archive order
    var topLevel: Set<String> = []
    var found: [(position: Int, skipped: PackReport.Skipped)] = []
    var firstNames: [DiskIdentity: String] = [:]  // of the files with several names on disk
    if documentLayout {
      found += try Self.specialEntries(of: root, at: "").map { (0, $0) }
    }
    try walk { node, name in
      try cancellation?.check(output)
      // As zip and tar pack the other files when one cannot be, and say so: a name unpack would refuse is left out.
      if let reason = try unreadableName(name) {
        found.append((entryCount, PackReport.Skipped(path: name, reason: reason)))
        skippedNames.insert(name)
        return false
      }
      entryCount += 1
      if node.kind == .file { totalBytes += node.size }
      if let identity = node.hardLinkedIdentity {
        if let original = firstNames[identity] {
          copies.append(PackReport.Copy(path: name, original: original))
        } else {
          firstNames[identity] = name
        }
      }
      if node.kind == .symlink {
        links.links[name] = node.symbolicLinkDestination
        linkOrder.append((name, entryCount))
      }
      if let first = name.split(separator: "/", maxSplits: 1).first { topLevel.insert(String(first)) }
      if node.kind == .directory {
        found += try Self.specialEntries(of: node, at: name).map { (entryCount, $0) }
      }
      return true
    }
    // Links by unpack's rule, once every one is known (a link may pass through another).
    for link in linkOrder {
      let destination = links.links[link.name]!
      guard let reason = links.problem(path: link.name, destination: destination, topLevel: topLevel) else { continue }
      found.append(
        (link.position, PackReport.Skipped(path: link.name, reason: "it links to '\(destination)': \(reason)")))
      skippedLinks.insert(link.name)
    }
    entryCount -= skippedLinks.count
    skipped = found.enumerated().sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }
      .map(\.element.skipped)
  }

  /// Whether the first entry is named `mimetype` (then a zip stores it first, bare).
  var firstEntryIsMimetype: Bool { documentLayout || prefix == "mimetype" }

  /// Calls `body` with each entry, in archive order.
  /// - Throws: ``/DocumentPackage/PackageError`` if a directory cannot be listed; what `body` throws.
  func forEach(_ body: (PackEntry) throws -> Void) throws {
    nodes = []
    try walk { node, name in
      if skippedNames.contains(name) { return false }
      if node.kind == .symlink, skippedLinks.contains(name) { return true }
      try body(try entry(for: node, name: name))
      return true
    }
  }

  /// Visits every node in archive order (depth first, children sorted) with its name in the archive,
  /// keeping a stack of the listings on the current path rather than recursing, however deep the package.
  /// A directory for which `visit` returns `false` is not entered.
  private func walk(_ visit: (PackageNode, String) throws -> Bool) throws {
    if documentLayout, let mimetype = try root.child(named: "mimetype") {
      _ = try visit(mimetype, "mimetype")
    }
    // The directories being walked: their children, the next one's index, and their path below the root.
    var stack: [(children: [PackageNode], next: Int, path: String)] = []
    func enter(_ node: PackageNode, path: String) throws {
      let depth = stack.count
      let skipped = documentLayout && (depth == 0 || (depth == 1 && path == "mimetype"))
      let entered =
        skipped ? true : try visit(node, path.isEmpty ? prefix : prefix.isEmpty ? path : prefix + "/" + path)
      if entered, node.kind == .directory { stack.append((try Self.children(of: node), 0, path)) }
    }
    try enter(root, path: "")
    while let top = stack.last {
      guard top.next < top.children.count else {
        stack.removeLast()
        continue
      }
      stack[stack.count - 1].next += 1
      let child = top.children[top.next]
      let name = Self.archiveName(of: child)
      try enter(child, path: top.path.isEmpty ? name : top.path + "/" + name)
    }
  }

  /// The node's name in the archive: its name, or the bytes it has on disk when they are not UTF-8.
  private static func archiveName(of node: PackageNode) -> String {
    node.nonUTF8NameOnDisk.map(EntryName.decodeBytes) ?? node.name
  }

  /// Why unpacking the archive would refuse an entry's name (control characters, too long): what `pack` writes,
  /// `unpack` reads; `nil` for a name it accepts.
  /// - Throws: ``/DocumentPackage/PackageError`` `invalidName` for a name that is not UTF-8 going into a zip, which
  ///   cannot hold it: a tar can, and the user may want one.
  private func unreadableName(_ name: String) throws -> String? {
    if format == .zip, name.unicodeScalars.contains(where: EntryName.isRawByte) {
      throw PackageError(
        .invalidName, "cannot pack", path: name,
        context: "into a zip: its name is not UTF-8, which a zip cannot hold (a tar keeps the bytes)")
    }
    do {
      try EntryName.rawBytes(name).withUnsafeBytes {
        try EntryPolicy.forEachComponent(of: $0, refuse: { PackageError($0, $1, path: name) }) { _ in }
      }
    } catch let error as PackageError {
      return error.message
    }
    return nil
  }

  /// The special files in the folder `directory` on disk (packed as `name`), which the model does not hold.
  private static func specialEntries(of directory: PackageNode, at name: String) throws -> [PackReport.Skipped] {
    guard let found = try directory.specialEntriesOnDisk() else { return [] }
    return found.map { entry in
      let entryName = EntryName.decodeBytes(entry.name.bytes.dropLast().map { UInt8(bitPattern: $0) })
      return PackReport.Skipped(
        path: name.isEmpty ? entryName : name + "/" + entryName, reason: "it is a \(entry.kind)")
    }
  }

  /// A directory's children in sorted order: the model's if it has listed them, else listed from
  /// disk for this walk, which the model does not keep.
  private static func children(of directory: PackageNode) throws -> [PackageNode] {
    try directory.sortedChildrenListedAnew()
  }

  private func entry(for node: PackageNode, name: String) throws -> PackEntry {
    var source = PackEntry.Source.none
    if node.kind == .file {
      if let file = try diskRoots.file(for: node) {
        source = .disk(file)
      } else {
        source = .node(nodes.count)
        nodes.append(node)
      }
    }
    let time = fixedTime.map { FileTime(seconds: $0) } ?? node.modificationTime ?? now
    return PackEntry(
      name: name, kind: node.kind, mode: UInt32(node.permissions.rawValue) & 0o7777, modificationTime: time,
      size: node.kind == .file ? node.size : 0,
      linkDestination: node.kind == .symlink ? node.symbolicLinkDestination : "", source: source)
  }
}
