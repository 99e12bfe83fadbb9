import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// Keeps the package as it is on disk now as a new version. Called by a save, under the
  /// package's lock, just before the swap (see ``PackageFile/versionPolicy``).
  /// - Complexity: O(*n*) directory reads and `lstat`s for *n* entries; only files not hashed
  ///   before (by device, inode, size and modification time) are read.
  @discardableResult
  func keepPackageState() throws -> PackageVersion {
    let tree = try PackageNode(contentsOf: packagePath)
    return try keep(tree, origin: .saved, conflictPaths: [])
  }

  /// Keeps `root` (a model tree: files on disk are linked, contents in memory written) as a new version.
  func keep(_ root: PackageNode, origin: PackageVersion.Origin, conflictPaths: [String]) throws -> PackageVersion {
    try prepare()
    var writer = ObjectWriter(store: self, cache: HashCache(path: hashesPath))
    let (tree, size) = try writer.store(directory: root)
    try writer.finish()
    let next = try takeNextID()
    let version = PackageVersion(
      id: next, date: Date(), origin: origin, isResolved: origin == .saved, size: size,
      conflictPaths: conflictPaths)
    let record = VersionRecord(
      version: version, rootTree: tree, rootPermissions: root.permissions,
      rootTime: root.modificationTime ?? FileTime(Date()))
    try StoreFiles.writeAtomically(
      record.encoded(), to: versionsPath.appending(String(next)), temporary: temporaryPath)
    return version
  }
}

/// Writes a tree's blobs and tree objects into a store.
struct ObjectWriter {
  let store: VersionStore
  var cache: HashCache
  /// Object subdirectories that got new entries, synced before the record is written.
  var touched: Set<String> = []
  private var made: Set<String> = []
  /// The objects directory, opened by the first link; closed by ``finish()``.
  private var objectsFD: CInt = -1

  var directories: DirectoryCache

  init(store: VersionStore, cache: HashCache) {
    self.store = store
    self.cache = cache
    directories = DirectoryCache(path: store.path.appending("dirs"))
  }

  /// Stores a directory (recursively); returns its tree hash and the size of its files.
  mutating func store(directory node: PackageNode) throws -> (String, Int64) {
    // A directory as it is on disk (never listed or edited here): maybe known already.
    if let origin = node.origin, node.edits.isEmpty, node.loadedChildren == nil,
      let cached = try cachedDirectory(at: origin.absolutePath, status: origin.status)
    {
      return cached
    }
    var text = ""
    var total: Int64 = 0
    var entries: [TreeEntry] = []
    for child in try node.sortedChildren() {
      let time = child.modificationTime ?? FileTime(Date())
      let entry: TreeEntry
      switch child.kind {
      case .directory:
        let (hash, size) = try store(directory: child)
        total += size
        entry = TreeEntry(
          kind: .directory, permissions: child.permissions, time: time, size: 0, reference: hash, name: child.name)
      case .file:
        let hash = try store(file: child)
        total += child.size
        entry = TreeEntry(
          kind: .file, permissions: child.permissions, time: time, size: child.size, reference: hash, name: child.name)
      case .symlink:
        entry = TreeEntry(
          kind: .symlink, permissions: child.permissions, time: time, size: child.size,
          reference: child.symbolicLinkDestination, name: child.name)
      }
      text += entry.line
      if entry.kind == .directory { entries.append(entry) }
    }
    let data = Data(text.utf8)
    let hash = ContentHash.of(data)
    if let origin = node.origin, node.edits.isEmpty, node.origin?.status.kind == .directory,
      node.hasUnsavedChanges == false
    {
      let subdirectories = entries.filter { $0.kind == .directory }.map { (name: $0.name, tree: $0.reference) }
      directories.note(origin.status, DirectoryCache.Entry(tree: hash, size: total, subdirectories: subdirectories))
    }
    if try !Syscalls.entryExists(store.objectPath(hash)) {
      try writeObject(hash) { fd throws(Errno) in try StoreFiles.write(data, to: fd) }
    }
    return (hash, total)
  }

  /// Stores a file's contents; returns the blob hash.
  mutating func store(file node: PackageNode) throws -> String {
    if case .source(let blob as VersionBlob) = node.fileBody, blob.store.path == store.path {
      return blob.hash  // already in this store
    }
    if let location = node.diskLocation, let status = node.origin?.status {
      // A file on disk: hash it once, then link it in.
      let key = HashCache.Key(status)
      let hash: String
      if let known = cache.hash(for: key) {
        hash = known
      } else {
        let fd: CInt
        do { fd = try Syscalls.openFile(location, [.readOnly, .noFollow]) } catch {
          throw PackageError.io(error, "cannot open", path: location.string, context: "while keeping a version")
        }
        defer { Syscalls.closeFile(fd) }
        hash = try ContentHash.of(fd: fd, path: location)
        cache.add(key, hash)
      }
      try link(location, as: hash)
      return hash
    }
    // Contents in memory or from a source: write them out while hashing.
    let blob = try AtomicFile(for: nil, stagingIn: store.temporaryPath, label: "blob", mode: 0o444)
    var hasher = ContentHash.Hasher()
    try node.readContents { chunk in
      hasher.update(chunk)
      do throws(Errno) { try Syscalls.writeAll(blob.fd, chunk) } catch {
        throw PackageError.io(error, "cannot write", path: blob.temporaryPath)
      }
    }
    let hash = hasher.finalize()
    try makeSubdirectory(hash)
    let object = store.objectPath(hash)
    if try Syscalls.entryExists(object) {
      blob.discard()
    } else {
      // The objects directories touched are synced once, at the end of the version.
      try blob.commit(to: object, syncDirectory: false)
      touched.insert(String(hash.prefix(2)))
    }
    return hash
  }

  /// Hard-links `file` as blob `hash` (an existing blob is kept); copies where links are refused.
  /// The link goes through the objects directory's descriptor and a relative name: building a
  /// `FilePath` per file costs more than the `linkat` itself.
  mutating func link(_ file: FilePath, as hash: String) throws {
    try makeSubdirectory(hash)
    if objectsFD < 0 {
      do { objectsFD = try Syscalls.openFile(store.objectsPath, [.readOnly, .directory]) } catch {
        throw PackageError.io(error, "cannot open", path: store.objectsPath.string)
      }
    }
    let relative = RawName(String(hash.prefix(2)) + "/" + String(hash.dropFirst(2)))
    do {
      try Syscalls.link(from: currentDirectory, RawName(path: file), to: objectsFD, relative)
      touched.insert(String(hash.prefix(2)))
    } catch .fileExists {
    } catch  where error.refusesLink {
      let input: CInt
      do { input = try Syscalls.openFile(file, [.readOnly, .noFollow]) } catch {
        throw PackageError.io(error, "cannot open", path: file.string)
      }
      defer { Syscalls.closeFile(input) }
      try writeObject(hash) { fd throws(Errno) in try FileCarrier.copyContents(from: input, to: fd) }
    } catch {
      throw PackageError.io(error, "cannot link", path: file.string, context: "into \(store.objectPath(hash).string)")
    }
  }

  /// Writes an object through `tmp/` (synced, then renamed in).
  mutating func writeObject(_ hash: String, _ body: (CInt) throws(Errno) -> Void) throws {
    try makeSubdirectory(hash)
    let object = try AtomicFile(
      for: store.objectPath(hash), stagingIn: store.temporaryPath, label: "object", mode: 0o444)
    do throws(Errno) { try body(object.fd) } catch {
      throw PackageError.io(error, "cannot write", path: store.objectPath(hash))
    }
    try object.commit(to: store.objectPath(hash), syncDirectory: false)
    touched.insert(String(hash.prefix(2)))
  }

  /// Makes `objects/ab` for `hash` once per writer.
  mutating func makeSubdirectory(_ hash: String) throws {
    let name = String(hash.prefix(2))
    guard !made.contains(name) else { return }
    let directory = store.objectsPath.appending(name)
    do { try StoreFiles.makeDirectory(directory) } catch {
      throw PackageError.io(error, "cannot create", path: directory.string)
    }
    made.insert(name)
  }

  /// Makes the new objects durable and saves the hash cache.
  mutating func finish() throws {
    if objectsFD >= 0 {
      Syscalls.closeFile(objectsFD)
      objectsFD = -1
    }
    for name in touched.sorted() {
      let directory = store.objectsPath.appending(name)
      do { try StoreFiles.syncDirectory(directory) } catch {
        throw PackageError.io(error, "cannot sync", path: directory.string)
      }
    }
    if !touched.isEmpty {
      do { try StoreFiles.syncDirectory(store.objectsPath) } catch {
        throw PackageError.io(error, "cannot sync", path: store.objectsPath.string)
      }
    }
    cache.save()
    directories.save(temporary: store.temporaryPath)
  }
}
