import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The package as it is on disk, as ``TreeObject``s: every tree by hash and by directory path, and every blob's
/// hash with the package path it can be read from. What DocumentSync pushes and compares (the trees are the
/// version store's format: a state pushed and the same state kept as a version are the same objects).
///
/// Made by listing every directory (one `getdents` and one `fstatat` per entry) and hashing only the files the
/// ``HashCache`` does not know at their device, inode, size, modification and change time — the version store's stat
/// cache, one for versions and sync: after a change to one file of 100,000, one file is read. The walk keeps an
/// explicit stack of the directories being listed (the package chooses its depth).
package struct PackageScan: Sendable {
  /// The root tree's hash.
  package var root: String
  /// Tree objects by hash.
  package var trees: [String: TreeObject] = [:]
  /// Tree hashes by directory path ("" for the root).
  package var treePaths: [String: String] = [:]
  /// Blobs by hash: a package path holding the bytes, and the size.
  package var blobs: [String: (path: String, size: Int64)] = [:]
  /// How many files were read and hashed (the others were known to the cache).
  package var hashedFiles = 0

  /// Scans the package at `packagePath` with the stat cache at `cachePath`, then appends to the cache what it
  /// learned (blocking).
  /// - Parameters:
  ///   - written: Files this process just wrote with known contents (a clone's), by package path: one the cache
  ///     does not know and whose size is as given takes its hash from here instead of being read.
  /// - Throws: ``PackageError`` naming the directory or file that cannot be read.
  package init(
    packageAt packagePath: FilePath, hashCache cachePath: FilePath,
    written: [String: (hash: String, size: Int64)] = [:]
  ) throws {
    var cache = HashCache(path: cachePath)
    var walk = ScanWalk(written: written)
    defer { walk.buffer.deallocate() }
    root = try walk.run(packagePath, cache: &cache)
    trees = walk.trees
    treePaths = walk.treePaths
    blobs = walk.blobs
    hashedFiles = walk.hashed
    cache.save()  // a cache: if it cannot be written (or a crash loses it), the next scan hashes again
  }
}

extension VersionStore {
  /// Scans the package at `packagePath` with its version store's stat cache (the store's `hashes`; the store's
  /// folder is made, with the package's identity, if the package has none yet): DocumentSync's push, pull and
  /// clone (blocking).
  /// - Parameters:
  ///   - lockHeld: Whether the caller holds the package's lock (a moved store found on the way is renamed along
  ///     under it).
  ///   - written: As ``PackageScan/init(packageAt:hashCache:written:)``.
  /// - Throws: ``PackageError`` naming what cannot be read.
  package static func scan(
    packageAt packagePath: FilePath, lockHeld: Bool, written: [String: (hash: String, size: Int64)] = [:]
  ) throws -> PackageScan {
    let store = try VersionStore(
      packagePath: PackageLink.resolve(packagePath), lockHeld: lockHeld, checkingIdentity: false)
    if !store.exists {
      // Best effort: without a store folder the scan still works, hashing every file each time.
      try? store.prepareDirectories()
      try? store.recordIdentity()
    }
    return try PackageScan(packageAt: packagePath, hashCache: store.hashesPath, written: written)
  }
}

/// One scan of a package (see ``PackageScan``).
private struct ScanWalk {
  var trees: [String: TreeObject] = [:]
  var treePaths: [String: String] = [:]
  var blobs: [String: (path: String, size: Int64)] = [:]
  var hashed = 0
  let written: [String: (hash: String, size: Int64)]
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: Syscalls.readBufferAlignment)

  init(written: [String: (hash: String, size: Int64)]) { self.written = written }

  /// One directory being scanned: its listing, how far it got, and its entries so far.
  struct Level {
    let listing: [DirectoryEntry]
    var index = 0
    let absolute: FilePath
    let path: String
    var entries: [TreeEntry] = []
  }

  /// Scans the directory at `absolute` and everything below it; returns its tree's hash.
  mutating func run(_ absolute: FilePath, cache: inout HashCache) throws -> String {
    var stack = [Level(listing: try list(absolute), absolute: absolute, path: "")]
    var finished: String?  // the hash of the directory just scanned, for its entry in its parent
    while true {
      let top = stack.count - 1
      if let hash = finished {
        finished = nil
        let child = stack[top].listing[stack[top].index - 1]
        stack[top].entries.append(
          TreeEntry(
            kind: .directory, permissions: child.status.permissions, time: TreeEntry.directoryTime, size: 0,
            reference: hash, name: child.name))
      }
      guard stack[top].index < stack[top].listing.count else {
        let level = stack.removeLast()
        let tree = TreeObject(entries: level.entries)
        let hash = tree.hash
        trees[hash] = tree
        treePaths[level.path] = hash
        if stack.isEmpty { return hash }
        finished = hash
        continue
      }
      let child = stack[top].listing[stack[top].index]
      stack[top].index += 1
      guard let kind = child.status.kind else { continue }
      let status = child.status
      let path = stack[top].path
      let childPath = path.isEmpty ? child.name : "\(path)/\(child.name)"
      let childAbsolute = stack[top].absolute.appending(child.rawName)
      switch kind {
      case .directory:
        stack.append(Level(listing: try list(childAbsolute), absolute: childAbsolute, path: childPath))
      case .symlink:
        stack[top].entries.append(
          TreeEntry(
            kind: .symlink, permissions: status.permissions, time: status.modificationTime, size: status.size,
            reference: child.destination ?? "", name: child.name))
      case .file:
        let hash: String
        if let known = cache.hash(for: status) {
          hash = known
        } else if let known = written[childPath], known.size == status.size {
          hash = known.hash
          cache.add(status, hash)
        } else {
          hash = try self.hash(childAbsolute)
          hashed += 1
          cache.add(status, hash)
        }
        blobs[hash] = (childPath, status.size)
        stack[top].entries.append(
          TreeEntry(
            kind: .file, permissions: status.permissions, time: status.modificationTime, size: status.size,
            reference: hash, name: child.name))
      }
    }
  }

  private func list(_ absolute: FilePath) throws -> [DirectoryEntry] {
    do { return try Syscalls.listDirectory(absolute).1 } catch {
      throw PackageError.io(error, "cannot list directory", path: absolute, context: "while scanning the package")
    }
  }

  /// The SHA-256 of the file at `path`, read in 1 MiB chunks.
  private func hash(_ path: FilePath) throws -> String {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, [.readOnly, .noFollow]) } catch {
      throw PackageError.io(error, "cannot open", path: path, context: "to hash it")
    }
    defer { Syscalls.closeFile(fd) }
    var hasher = ContentHash.Hasher()
    while true {
      let count: Int
      do { count = try Syscalls.readBytes(fd, into: buffer) } catch {
        throw PackageError.io(error, "cannot read", path: path, context: "to hash it")
      }
      if count == 0 { return hasher.finalize() }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
  }
}
