import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageNode {
  /// How a package is read from disk.
  public struct ReadingOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Read the whole tree and every file's contents now, instead of on first access.
    /// Use it when the files may change or vanish before they are needed.
    public static let immediate = ReadingOptions(rawValue: 1 << 0)
    /// Never memory-map contents; read them into memory instead.
    /// Mapping is the default for files of ``PackageNode/mappingThreshold`` bytes or more.
    public static let withoutMapping = ReadingOptions(rawValue: 1 << 1)
  }

  /// Files at least this large are memory-mapped by ``contents(options:)`` unless
  /// ``ReadingOptions/withoutMapping`` is given: 1 MiB.
  public static let mappingThreshold: Int64 = 1 << 20

  /// Opens the file, directory or symbolic link at `path`, reading only the node itself.
  ///
  /// Children and contents are read on first access. If `path` is itself a symbolic link, it is
  /// followed (a package may be reached through a link); links inside the package stay links.
  /// - Parameters:
  ///   - path: The package on disk.
  ///   - options: ``ReadingOptions/immediate`` to read everything now.
  /// - Throws: ``PackageError`` naming `path` if it does not exist, cannot be read, or is not a
  ///   file, directory or link.
  public convenience init(contentsOf path: FilePath, options: ReadingOptions = []) throws {
    let status: FileStatus
    do { status = try Syscalls.statusFollowing(path) } catch {
      throw PackageError(
        error == .noSuchFileOrDirectory ? .noSuchEntry : .io,
        error == .noSuchFileOrDirectory ? "no such package" : "cannot open", path: path.string,
        errno: error == .noSuchFileOrDirectory ? nil : error)
    }
    guard let kind = status.kind else {
      throw PackageError(.unsupported, "not a file, directory or symbolic link:", path: path.string)
    }
    // A directory reached through a link is read where the link leads (as saves write there:
    // `PackageLink`), since its entries are read relative to the root without following links.
    let location = PackageLocation(root: kind == .directory ? PackageLink.resolve(path) : path)
    self.init(
      kind: kind, name: Self.rootName(of: path), permissions: status.permissions,
      origin: DiskOrigin(location: location, status: status))
    if kind == .directory { location.loadedRoot = RootIdentity.at(location.root) }
    if options.contains(.immediate) { try loadEverything(options: options) }
  }

  /// The name of the node opened at `path`: its last component, or the real folder's name when that
  /// is `.` or `..`: `docpkg pack .` names the archive's top folder after the package's folder.
  private static func rootName(of path: FilePath) -> String {
    guard let last = path.lastComponent else { return path.string }
    if last.kind != .regular, let real = Syscalls.resolvingLinks(path)?.lastComponent { return real.string }
    return last.string
  }

  /// Re-reads the node from disk, dropping every change made in memory.
  ///
  /// `FileWrapper.read(from:options:)`. Reads from `path` if given, else from where the node was loaded.
  /// - Throws: ``PackageError`` if the node was made in memory and no path is given, if the file
  ///   on disk is now of another kind, or if it cannot be read.
  public func read(from path: FilePath? = nil, options: ReadingOptions = []) throws {
    guard let path = path ?? origin?.absolutePath else {
      throw PackageError(.invalidArgument, "no file to read from for", path: self.path.isEmpty ? name : self.path)
    }
    try treeRecorder?.willChange(at: displayPath)
    let fresh = try PackageNode(contentsOf: path, options: options)
    guard fresh.kind == kind else {
      throw PackageError(.changedOnDisk, "is a \(fresh.kind) on disk, not a \(kind):", path: path.string)
    }
    // Another entry than the one loaded (by the one rule, DiskStamp.swift) starts a new generation.
    let sameEntry = origin.map { was in
      fresh.origin.map {
        $0.absolutePath == was.absolutePath && $0.status.isUnchanged(since: was.status, listing: true)
      }
        ?? false
    }
    if sameEntry != true { diskGeneration &+= 1 }
    origin = fresh.origin
    storedPermissions = fresh.storedPermissions
    storedModificationTime = fresh.storedModificationTime
    loadedChildren = kind == .directory ? nil : fresh.loadedChildren
    probedChildren = nil
    probedRemovals = nil
    fileBody = .onDisk
    cachedContents = fresh.cachedContents
    linkDestination = fresh.linkDestination
    if kind == .symlink { linkDestination = try Self.readDestination(of: path) }
    edits = []
    if kind == .directory, options.contains(.immediate) { try loadEverything(options: options) }
  }

  /// Whether the node, as loaded, still matches what is on disk at `path`:
  /// `FileWrapper.matchesContents(of:)`.
  ///
  /// Compares kind, inode, size, modification time and permissions of this node and of every
  /// node loaded below it (listed, or looked up alone by a path walk), and the names in every listed
  /// directory. Parts never loaded are not compared. Changes made in
  /// memory count as differences.
  /// - Complexity: O(*n*) `lstat` calls for *n* loaded nodes.
  public func matchesContents(of path: FilePath) -> Bool {
    var pending: [(node: PackageNode, path: FilePath)] = [(self, path)]
    while let (node, path) = pending.popLast() {
      guard let origin = node.origin, node.edits.isEmpty else { return false }
      guard
        let status = try?
          (node === self && parent == nil
          ? Syscalls.statusFollowing(path) : Syscalls.statusNoFollow(path)),
        status.isUnchanged(since: origin.status, listing: node.loadedChildren != nil)
      else { return false }
      guard node.kind == .directory else { continue }
      guard let loadedChildren = node.loadedChildren else {
        // Never listed: only the children a path walk looked up are compared.
        for child in node.probedChildren?.values ?? [:].values {
          guard let name = child.origin?.name else { return false }
          pending.append((child, path.appending(name)))
        }
        continue
      }
      guard let (_, entries) = try? Syscalls.listDirectory(path), entries.count == loadedChildren.count else {
        return false
      }
      for entry in entries {
        guard let child = loadedChildren[entry.name], child.origin?.name == entry.rawName else { return false }
        pending.append((child, path.appending(entry.rawName)))
      }
    }
    return true
  }

  /// Lists the children from disk (directories) and reads the contents (files) of the whole tree.
  func loadEverything(options: ReadingOptions) throws {
    var pending: [PackageNode] = [self]
    while let node = pending.popLast() {
      switch node.kind {
      case .directory: pending.append(contentsOf: try node.children().values)
      case .file: _ = try node.contents(options: options)
      case .symlink: break
      }
    }
  }

  /// Reads a directory's children from disk, by name and in byte-wise name order.
  /// A directory made in memory has none to read.
  func listChildrenFromDisk() throws -> ([String: PackageNode], [PackageNode]) {
    guard let origin else { return ([:], []) }
    let path = origin.absolutePath
    let listing: (FileStatus, [DirectoryEntry])
    do { listing = try origin.list() } catch {
      throw onDiskError(error, path: path, action: "list directory")
    }
    try verifyLoad(of: listing.0, path: path)
    try verifyStillNamed(listing.0, path: path)
    self.origin?.status = listing.0
    let directoryPath = origin.relativePath
    var children: [String: PackageNode] = [:]
    children.reserveCapacity(listing.1.count)
    var sorted: [PackageNode] = []
    sorted.reserveCapacity(listing.1.count)
    for entry in listing.1 {
      guard let kind = entry.status.kind else { continue }
      let name = entry.name
      let child = PackageNode(
        kind: kind, name: name, permissions: entry.status.permissions, origin: origin.child(entry, in: directoryPath))
      if let destination = entry.destination { child.linkDestination = destination }
      child.parent = self
      sorted.append(child)
      if let earlier = children.updateValue(child, forKey: name) {
        // Names are `String`s, equal when canonically equivalent: two names that are not byte for byte the same
        // are one name here when they differ in Unicode normalization, or decode alike from bytes not UTF-8.
        guard earlier.name.unicodeScalars.elementsEqual(name.unicodeScalars) else {
          throw PackageError(
            .invalidName, "two entries are one name in different Unicode normalizations (NFC and NFD):", path: name,
            context: "in '\(path.string)' (rename one of them)")
        }
        throw PackageError(
          .invalidName, "two entries decode to the same name", path: name,
          context: "in '\(path.string)' (a name is not valid UTF-8)")
      }
    }
    return (children, sorted)
  }

  /// The error for a failed access to this node's file: vanished or changed kind, or another failure.
  /// For a model that verifies its loads, an entry gone or changed in kind is a newer state met (see
  /// `PackageNode+LoadVerification`): its owner reacts.
  func onDiskError(_ error: Errno, path: FilePath, action: String) -> PackageError {
    let failure = Self.onDiskError(error, kind: kind, path: path, action: action)
    if failure.code == .changedOnDisk, let location = origin?.location, location.verifiesLoads {
      location.metNewerState = true
    }
    return failure
  }

  /// The error for a failed access to a file of kind `kind` on disk, opened as the model opens
  /// (``Syscalls/openBeneath(_:_:_:)``): vanished, changed kind, a folder on the path replaced by a
  /// link, or another failure.
  package static func onDiskError(_ error: Errno, kind: NodeKind, path: FilePath, action: String) -> PackageError {
    switch error {
    case .noSuchFileOrDirectory:
      return PackageError(.changedOnDisk, "\(kind) vanished from disk since it was loaded:", path: path.string)
    case .notDirectory, .tooManySymbolicLinkLevels:
      return PackageError(.changedOnDisk, "\(kind) changed kind on disk since it was loaded:", path: path.string)
    case .improperLink:
      return PackageError(
        .changedOnDisk, "cannot \(action): a folder on the path was replaced by a link:", path: path.string,
        context: "(not followed: it may lead out of the package)")
    default:
      return PackageError.io(error, "cannot \(action)", path: path)
    }
  }

  static func readDestination(of path: FilePath) throws -> String {
    do {
      return try Syscalls.readLink(at: path)
    } catch {
      throw PackageError.io(error, "cannot read link", path: path)
    }
  }
}
