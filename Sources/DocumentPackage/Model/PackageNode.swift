import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A node of a document package: a regular file, a directory, or a symbolic link.
///
/// `PackageNode` is this library's `FileWrapper`. A tree of nodes describes a package; nodes read from
/// disk load lazily — a directory lists its children the first time they are asked for, and a
/// file reads its bytes the first time they are asked for — so opening a package of 100,000 files
/// and reading one of them touches only the directories on that file's path.
///
///     let package = try PackageNode(contentsOf: "/home/ann/Trip.mydoc")
///     let text = try package.node(at: "Pages/p0001/text.txt").contents()
///     try package.setFile(at: "Index.json", contents: Data(json.utf8))
///
/// Errors are thrown by the access that failed and name the path, rather than showing up later.
/// A node remembers what it looked like on disk when it was loaded, and which of its parts were
/// changed since, so a save can write only what changed (see ``hasUnsavedChanges``).
///
/// Nodes are not thread-safe: confine a tree to one task or actor, as with `FileWrapper`.
///
/// ## Ownership
/// A directory owns its children; a child does not own its directory. Keep the root of a tree
/// while you use nodes from it. A node whose root (or any directory above it) is released is cut
/// from the tree: it becomes the root of its own subtree, with ``parent`` `nil` and ``path`` `""`,
/// and no longer sees the tree's recorder (changes to it are not undoable). It keeps its
/// ``name``, its attributes, the children it holds, and its contents (read from where it was
/// loaded), so it can still be read or added to another tree.
///
///     let root = try PackageNode(contentsOf: "/home/ann/Trip.mydoc")
///     let image = try root.node(at: "Images/tram.png")    // image.path == "Images/tram.png"
///     // if `root` is released here, image.path == "" and image.parent == nil
///
/// (A child holding its parent strongly would make every tree a reference cycle, and a weak
/// reference costs an allocation per node, which shows at 100,000 nodes.)
public final class PackageNode {
  /// Whether this is a file, a directory or a symbolic link. Fixed for the node's life.
  public let kind: NodeKind

  /// The node's name in its parent directory, or the last component of the path it was read from.
  ///
  /// Set by the parent when the node is added (see ``addChild(_:)`` for how clashes are resolved).
  public internal(set) var name: String

  /// The name the node asks for when added to a directory; the parent may pick another if it is taken.
  public var preferredName: String

  /// The directory that holds this node, if any; `nil` for a root, and for a node whose directory
  /// was released (see "Ownership" above).
  ///
  /// Unowned rather than weak (a weak reference costs an allocation per node, which shows at
  /// 100,000 nodes); a directory clears its children's `parent` when it is deallocated, so this
  /// never dangles.
  public internal(set) unowned(unsafe) var parent: PackageNode?

  /// POSIX permission bits (`0o644`, with set-id and sticky bits if present).
  ///
  /// Setting them is a change like any other (see ``setPermissions(_:)``, which says when it is refused).
  public var permissions: FilePermissions {
    get { storedPermissions }
    set { try? setPermissions(newValue) }
  }

  /// The modification time; `nil` for a new node, which gets the time it is saved.
  ///
  /// Setting it is a change like any other (see ``setModificationTime(_:)``, which says when it is refused).
  public var modificationTime: FileTime? {
    get { storedModificationTime }
    set { try? setModificationTime(newValue) }
  }

  /// The permission bits, set without recording a change (loading, saving, undoing).
  var storedPermissions: FilePermissions
  /// The modification time, set without recording a change (loading, saving, undoing).
  var storedModificationTime: FileTime?

  /// Sees every change made to the tree below this node: installed on a root by the undo layer
  /// (``PackageEditor``). Weak: the tree never keeps its editor alive.
  weak var recorder: (any TreeRecorder)?

  /// Where the node was loaded from; `nil` for nodes made in memory.
  var origin: DiskOrigin?

  /// Which parts of this node were changed in memory since it was loaded or last saved.
  var edits: Edits = []

  /// Counts the entries on disk this node has had: a save that gives it a new one (new bytes for a
  /// file, a new directory or link) or a reload that finds another one adds one. Undo tells by it
  /// whether the entry a state recorded is still the node's, which an inode number cannot: once a
  /// save removed that entry, the file system may give its number to a later one (ext4 hands out
  /// the lowest free number), so the number alone would match another file (see ``restorable(_:)``).
  var diskGeneration: UInt32 = 0

  // Kind-specific state. Only the storage of `kind` is used.

  /// A directory's children by name; `nil` until listed.
  var loadedChildren: [String: PackageNode]? {
    didSet { sortedChildrenCache = nil }
  }
  /// Children of a directory not listed yet, each looked up alone by a path walk (see
  /// `PackageNode+Probing.swift`); `nil` once listed, and for the others.
  var probedChildren: [String: PackageNode]?
  /// Names taken out of a directory not listed yet (see `PackageNode+Probing.swift`): a listing made
  /// later leaves them out, and a save renames the one entry out (`EntryRemoval`); `nil` once listed
  /// or saved, and for the others.
  var probedRemovals: Set<String>?
  /// `loadedChildren` in byte-wise name order, kept until the children change.
  var sortedChildrenCache: [PackageNode]?
  /// Where a directory made in memory lists its children from (an archive read in place); `nil` for the
  /// others. Class-bound, so it costs a node two words.
  var listingSource: (any DirectoryListingSource)?
  /// A file's contents, as set in memory or supplied by a source.
  var fileBody: FileBody = .onDisk
  /// Contents read from disk (the node's file, or the package's file its source names: see
  /// ``DiskFileSource/isPackageFile``), kept after the first read as `FileWrapper` keeps them.
  var cachedContents: Data?
  /// A symbolic link's destination.
  var linkDestination: String = ""

  struct Edits: OptionSet {
    let rawValue: UInt8
    /// A file's contents or a link's destination.
    static let contents = Edits(rawValue: 1 << 0)
    /// Permissions or modification time.
    static let attributes = Edits(rawValue: 1 << 1)
    /// A directory's set of children: added, removed or renamed.
    static let membership = Edits(rawValue: 1 << 2)
  }

  enum FileBody {
    /// The contents are the file at ``origin``.
    case onDisk
    /// The contents were set in memory.
    case data(Data)
    /// The contents come from elsewhere (an archive entry).
    case source(any FileContentSource)
  }

  /// Cuts the children from the tree (see "Ownership" above). A child this node held the last
  /// reference to is taken apart here too, its own children queued, and so on down: releasing a
  /// chain of 10,000 directories would otherwise run 10,000 nested `deinit`s and overflow the stack.
  deinit {
    var pending = Self.takeChildren(of: self)
    while var node = pending.popLast() {
      guard isKnownUniquelyReferenced(&node) else { continue }
      pending.append(contentsOf: Self.takeChildren(of: node))
    }  // each `node` is released at the end of its turn, holding no children
  }

  /// Empties `directory`'s children, cutting those it is the parent of; returns them.
  private static func takeChildren(of directory: PackageNode) -> [PackageNode] {
    guard let children = directory.heldChildren else { return [] }
    directory.loadedChildren = nil  // also drops sortedChildrenCache
    directory.probedChildren = nil
    directory.probedRemovals = nil
    var taken: [PackageNode] = []
    taken.reserveCapacity(children.count)
    for child in children.values {
      if child.parent === directory { child.parent = nil }
      taken.append(child)
    }
    return taken
  }

  init(kind: NodeKind, name: String, permissions: FilePermissions, origin: DiskOrigin?) {
    self.kind = kind
    self.name = name
    self.preferredName = name
    self.storedPermissions = permissions
    self.origin = origin
    self.storedModificationTime = origin?.status.modificationTime
  }

  /// Creates a directory node holding `children`, keyed by the names they get.
  ///
  /// Each child's ``name`` and ``preferredName`` become its key.
  /// - Parameters:
  ///   - children: The children, by the name each gets; none by default.
  ///   - preferredName: The name of a root directory (a directory added to another gets its key).
  /// - Throws: ``PackageError/Code-swift.struct/invalidName`` for a key that cannot be a file name,
  ///   or ``PackageError/Code-swift.struct/invalidArgument`` for a child that already has a parent.
  public convenience init(directoryWithChildren children: [String: PackageNode] = [:], preferredName: String = "")
    throws
  {
    self.init(
      kind: .directory, name: preferredName,
      permissions: [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute], origin: nil)
    loadedChildren = [:]
    for (key, child) in children {
      try Self.validate(name: key)
      try adopt(child, as: key)
    }
  }

  /// Creates a regular-file node with `contents`, permissions `0o644`.
  public convenience init(regularFileWithContents contents: Data, preferredName: String = "") {
    self.init(kind: .file, name: preferredName, permissions: [.ownerReadWrite, .groupRead, .otherRead], origin: nil)
    fileBody = .data(contents)
  }

  /// Creates a regular-file node whose contents come from `source`, read only when asked for.
  public convenience init(regularFileWithSource source: any FileContentSource, preferredName: String = "") {
    self.init(kind: .file, name: preferredName, permissions: [.ownerReadWrite, .groupRead, .otherRead], origin: nil)
    fileBody = .source(source)
  }

  /// Creates a symbolic-link node pointing at `destination` (not checked: links may dangle).
  public convenience init(symbolicLinkWithDestination destination: String, preferredName: String = "") {
    self.init(kind: .symlink, name: preferredName, permissions: FilePermissions(rawValue: 0o777), origin: nil)
    linkDestination = destination
  }

  /// The destination of a symbolic link; empty for other kinds. A destination read from disk stands for its bytes
  /// exactly, as names do (`RawByteNames`): a byte that is not UTF-8 is the scalar U+F780–U+F7FF (U+F700 + the
  /// byte), which a save writes back as that byte. Setting it changes the link
  /// (see ``setSymbolicLinkDestination(_:)``, which says when it is refused).
  public var symbolicLinkDestination: String {
    get { linkDestination }
    set {
      precondition(kind == .symlink, "symbolicLinkDestination set on a \(kind) node")
      try? setSymbolicLinkDestination(newValue)
    }
  }

  /// The size in bytes, known without reading: a file's length, a link's destination length, 0 for a directory.
  public var size: Int64 {
    switch kind {
    case .directory: return 0
    case .symlink: return Int64(RawByteNames.encode(linkDestination).count)
    case .file:
      switch fileBody {
      case .onDisk: return origin?.status.size ?? 0
      case .data(let data): return Int64(data.count)
      case .source(let source): return source.size
      }
    }
  }

  /// The path of this node from the root of its tree, components joined by `/`; empty for the root
  /// (and for a node cut from its tree because its root was released: see "Ownership" above).
  public var path: String {
    var names: [String] = []
    var node = self
    while let parent = node.parent {
      names.append(node.name)
      node = parent
    }
    return names.reversed().joined(separator: "/")
  }

  /// The topmost ancestor (the node itself when it has no parent).
  public var root: PackageNode {
    var node = self
    while let parent = node.parent { node = parent }
    return node
  }

  /// The file on disk that holds this node exactly as the model has it, or `nil` when the node
  /// was made or changed in memory. Use it to hand the file to code that wants a path.
  public var diskLocation: FilePath? {
    guard let origin, !edits.contains(.contents) else { return nil }
    if kind == .file, case .onDisk = fileBody { return origin.absolutePath }
    return kind == .file ? nil : origin.absolutePath
  }

  /// Whether this node or anything loaded below it was changed in memory since it was loaded or
  /// last saved. Nodes made in memory count as changed.
  /// - Complexity: O(*n*) in the number of loaded nodes below this one.
  public var hasUnsavedChanges: Bool {
    var pending: [PackageNode] = [self]
    while let node = pending.popLast() {
      if node.origin == nil || !node.edits.isEmpty { return true }
      node.appendLoadedChildren(to: &pending)
    }
    return false
  }

  /// Whether a directory's children have been listed (always true for directories made in memory).
  public var isLoaded: Bool {
    switch kind {
    case .directory: return loadedChildren != nil
    case .file:
      if case .onDisk = fileBody { return cachedContents != nil }
      return true
    case .symlink: return true
    }
  }
}

extension PackageNode: CustomStringConvertible {
  public var description: String {
    let shown = path.isEmpty ? name : path
    switch kind {
    case .file: return "file '\(shown.escapingControlCharacters)' (\(size) bytes)"
    case .directory: return "directory '\(shown.escapingControlCharacters)'"
    case .symlink:
      return "symlink '\(shown.escapingControlCharacters)' -> '\(linkDestination.escapingControlCharacters)'"
    }
  }
}
