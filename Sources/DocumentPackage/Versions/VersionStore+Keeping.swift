import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// Keeps the package as it is on disk now as a new version. Called by a save, under the
  /// package's lock, just before the swap (see ``PackageFile/versionPolicy``).
  /// - Complexity: O(*n*) directory reads and `lstat`s for *n* entries (directories unchanged
  ///   since the last version are skipped); only files whose contents the store does not hold
  ///   yet (by device, inode, size, modification and change time) are read, each copied into the store
  ///   once (see ``ObjectStaging``).
  /// - Parameters:
  ///   - holding: A remote that holds some of the files: those are referenced, not copied (see
  ///     ``RemoteHolding``).
  ///   - marker: Where to write the version's id, durably, before its record (nil: nowhere): a save by
  ///     journal killed before its commit leaves it for recovery, which takes the version back
  ///     (``VersionKeeping/takeBackCopy(notedAt:_:)``).
  @discardableResult
  func keepPackageState(holding: RemoteHolding? = nil, notingIDAt marker: FilePath? = nil) throws -> PackageVersion {
    let tree = try PackageNode(contentsOf: packagePath)
    return try keep(tree, origin: .saved, conflictPaths: [], holding: holding, notingIDAt: marker)
  }

  /// Keeps `root` (a model tree: files on disk are copied or cloned, contents in memory written) as a new version;
  /// the files of it that `holding`'s remote holds are referenced, not copied.
  func keep(
    _ root: PackageNode, origin: PackageVersion.Origin, conflictPaths: [String], holding: RemoteHolding? = nil,
    notingIDAt marker: FilePath? = nil
  ) throws -> PackageVersion {
    try prepareDirectories()
    return try withStoreLock {
      try keepLocked(root, origin: origin, conflictPaths: conflictPaths, holding: holding, notingIDAt: marker)
    }
  }

  private func keepLocked(
    _ root: PackageNode, origin: PackageVersion.Origin, conflictPaths: [String], holding: RemoteHolding?,
    notingIDAt marker: FilePath?
  ) throws -> PackageVersion {
    try prepare()
    var writer = ObjectWriter(store: self, cache: HashCache(path: hashesPath))
    writer.holding = holding
    let (tree, size) = try writer.store(directory: root)
    try writer.finish()
    let next = try takeNextID()
    // Only a version that really left files on the remote names it.
    let remote = writer.heldRemotely > 0 ? holding : nil
    let version = PackageVersion(
      id: next, date: Date(), origin: origin, isResolved: origin == .saved, size: size,
      conflictPaths: conflictPaths, remote: remote?.remote)
    let record = VersionRecord(
      version: version, rootTree: tree, rootPermissions: root.permissions,
      rootTime: root.modificationTime ?? FileTime(Date()), remoteTree: remote?.tree,
      follows: newestRecordedID(before: next))
    let recordPath = versionsPath.appending(String(next))
    if let marker {
      try StoreFiles.writeAtomically(
        Data((HashCache.checked(String(next)) + "\n").utf8), to: marker, temporary: marker.removingLastComponent())
    }
    do { try StoreFiles.writeAtomically(record.encoded(), to: recordPath, temporary: temporaryPath) } catch {
      // Renamed into place but not made durable (the folder's fsync failed): the save that asked for it fails, so
      // the version is not listed either (outsider attack 3 on issue 35, F10: it stayed, a copy of the package the
      // failed save left as it was). Its objects go with the next prune.
      try? Syscalls.unlink(recordPath)
      throw error
    }
    noteRecorded(next)
    return version
  }
}

/// Writes a tree's blobs and tree objects into a store (through ``ObjectStaging``: every blob is
/// the store's own copy, never a link to a package file).
struct ObjectWriter {
  let store: VersionStore
  var cache: HashCache
  let staging: ObjectStaging

  var directories: DirectoryCache
  /// A remote holding some of the files: those the store does not have are referenced, not copied.
  var holding: RemoteHolding?
  /// How many files were referenced on ``holding``'s remote rather than copied.
  private(set) var heldRemotely = 0

  init(store: VersionStore, cache: HashCache) {
    self.store = store
    self.cache = cache
    staging = ObjectStaging(store: store)
    directories = DirectoryCache(path: store.path.appending("dirs"), package: store.packagePath)
  }

  /// Stores a file's contents; returns the blob hash.
  mutating func store(file node: PackageNode) throws -> String {
    if case .source(let blob as VersionBlob) = node.fileBody, blob.store.path == store.path {
      return blob.hash  // already in this store
    }
    if let location = node.diskLocation, let status = node.origin?.status {
      return try storeFile(at: location, status: status)
    }
    // Contents in memory or from a source: write them out while hashing.
    return try staging.stage { fd, path in
      var hasher = ContentHash.Hasher()
      try node.readContents { chunk in
        hasher.update(chunk)
        do throws(Errno) { try Syscalls.writeAll(fd, chunk) } catch {
          throw PackageError.io(error, "cannot write", path: path.string)
        }
      }
      return hasher.finalize()
    }
  }

  /// Stores the file at `location` (whose status is `status`): copied (or cloned) into the store
  /// once per contents; the hash is the copy's. With `directory`, the file is opened by its name
  /// there (see ``ObjectStaging/copy(_:in:)``).
  mutating func storeFile(
    at location: FilePath, status: FileStatus, in directory: (fd: CInt, name: FilePath.Component)? = nil
  ) throws -> String {
    if let known = cache.hash(for: status), try staging.owns(known) { return known }
    if let holding {
      let known = cache.hash(for: status)
      let hash = try known ?? ContentHash.ofFile(at: location)
      if known == nil { cache.add(status, hash) }
      if holding.blobs.contains(hash) {
        heldRemotely += 1
        return hash
      }
    }
    let hash = try staging.copy(location, in: directory)
    if hash != cache.hash(for: status) { cache.add(status, hash) }
    return hash
  }

  /// The blob the store holds as its own copy of the file whose status is `status` (by device,
  /// inode, size, modification and change time, from the ``HashCache``), or nil; reads no file.
  func ownedBlob(for status: FileStatus) throws -> String? {
    guard let known = cache.hash(for: status), try staging.owns(known) else { return nil }
    return known
  }

  /// Writes object `hash` (a tree object: its bytes are known) unless the store has it.
  mutating func writeObject(_ hash: String, _ body: (CInt) throws(Errno) -> Void) throws {
    guard try !staging.has(hash) else { return }
    _ = try staging.stage { fd, path in
      do throws(Errno) { try body(fd) } catch { throw PackageError.io(error, "cannot write", path: path.string) }
      return hash
    }
  }

  /// How many staged objects a long walk commits at a time (``commitIfMany()``), so that what it
  /// holds in memory does not grow with the package.
  static let batchSize = 8192

  /// Commits the staged objects once there are ``batchSize`` of them (a version's objects need not
  /// be committed together: an object no record names is removed by the next prune).
  mutating func commitIfMany() throws {
    guard staging.stagedCount >= Self.batchSize else { return }
    try commitObjects()
  }

  /// Makes the new objects durable, renames them in, and saves the caches.
  mutating func finish() throws {
    try commitObjects()
    directories.save(temporary: store.temporaryPath)
  }

  /// Makes the staged objects durable, renames them in, and appends the new hash cache entries.
  private mutating func commitObjects() throws {
    let touched = try staging.commit()
    // Their bytes were durable before their renames: found whole as written, by a check's cache.
    defer { HashCache.append(staging.takeCommitted(), to: store.verifiedPath) }
    if touched.count > DurabilityPlan.perItemLimit {
      // Hundreds of objects/ab directories got entries (a first version): one syncfs instead
      // of one journal commit per directory (see DurabilityPlan).
      do { try StoreFiles.flushFileSystem(of: store.objectsPath) } catch {
        throw PackageError.io(error, "cannot flush file system of", path: store.objectsPath.string)
      }
      cache.save()
      return
    }
    for name in touched.sorted() {
      let directory = store.objectsPath.appending(name)
      do { try StoreFiles.flushDirectory(directory) } catch {
        throw PackageError.io(error, "cannot flush", path: directory.string)
      }
    }
    if !touched.isEmpty {
      do { try StoreFiles.flushDirectory(store.objectsPath) } catch {
        throw PackageError.io(error, "cannot flush", path: store.objectsPath.string)
      }
    }
    cache.save()
  }
}
