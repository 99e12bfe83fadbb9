import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The package as it is on disk, as remote objects: every tree object by hash and by directory path, and every
/// blob's hash with the package path it can be read from.
///
/// Made by listing every directory (one `getdents` and one `fstatat` per entry) and hashing only the files the
/// sync folder's `SyncIndex` does not know at their device, inode, size and modification time: after a change
/// to one file of 100,000, one file is read. A directory whose entries are all as indexed keeps its tree hash
/// without encoding its tree again.
struct Snapshot {
  /// The root tree's hash.
  var root: String
  /// Tree objects by hash.
  var trees: [String: SyncTree] = [:]
  /// Tree hashes by directory path ("" for the root).
  var treePaths: [String: String] = [:]
  /// Blobs by hash: a package path holding the bytes, and the size.
  var blobs: [String: (path: String, size: Int64)] = [:]
  /// How many files were read and hashed (the others were known to the index).
  var hashedFiles = 0

  /// Scans the package at `packagePath`, using and then updating the index at `indexPath` (blocking: call on
  /// ``BlockingIO``).
  /// - Throws: ``PackageError`` naming the directory or file that cannot be read.
  /// - Parameter written: Files this process just wrote with known contents (a clone's), by package path: one whose
  ///   size is as listed takes its hash from here instead of being read.
  init(packageAt packagePath: FilePath, index indexPath: FilePath, written: FlatTree = [:]) throws {
    var scanner = Scanner(old: SyncIndex(path: indexPath), written: written)
    defer { scanner.buffer.deallocate() }
    root = try scanner.scan(packagePath, path: "")
    trees = scanner.trees
    treePaths = scanner.treePaths
    blobs = scanner.blobs
    hashedFiles = scanner.hashed
    if scanner.changed {
      // A cache: if it cannot be written (or a crash loses it), the next scan hashes again.
      try? scanner.writeIndex(to: indexPath)
    }
  }
}

/// One scan of a package (see `Snapshot`).
private struct Scanner {
  let old: SyncIndex
  var new = SyncIndex()
  var trees: [String: SyncTree] = [:]
  var treePaths: [String: String] = [:]
  var blobs: [String: (path: String, size: Int64)] = [:]
  var hashed = 0
  var changed = false
  /// The directories whose index block changed, deepest first.
  var changedPaths: [String] = []
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: Syscalls.readBufferAlignment)

  let written: FlatTree

  init(old: SyncIndex, written: FlatTree) {
    self.old = old
    self.written = written
  }

  /// Scans the directory at `absolute` (`path` in the package) and everything below it; returns its tree's hash.
  ///
  /// With an explicit stack of the directories being scanned, not recursion: the package chooses its depth.
  mutating func scan(_ absolute: FilePath, path: String) throws -> String {
    var stack = [try ScanLevel(listing: list(absolute), absolute: absolute, path: path, known: old.directories[path])]
    var finished: String?  // the hash of the directory just scanned, for the entry it is in its parent
    while true {
      let top = stack.count - 1
      if let hash = finished {
        finished = nil
        let child = stack[top].listing[stack[top].index - 1]
        let mode = UInt16(truncatingIfNeeded: child.status.permissions.rawValue)
        stack[top].add(
          child,
          SyncIndex.Entry(
            entry: SyncEntry(kind: .directory, mode: mode, size: 0, reference: hash), device: 0, inode: 0,
            time: FileTime(seconds: 0)))
      }
      guard stack[top].index < stack[top].listing.count else {
        let level = stack.removeLast()
        let hash: String
        if level.same, let known = level.known {
          hash = known.tree
        } else {
          hash = level.tree.hash
          changed = true
          changedPaths.append(level.path)
        }
        trees[hash] = level.tree
        treePaths[level.path] = hash
        new.directories[level.path] = SyncIndex.Directory(tree: hash, entries: level.indexed)
        if stack.isEmpty { return hash }
        finished = hash
        continue
      }
      let child = stack[top].listing[stack[top].index]
      stack[top].index += 1
      guard let kind = child.status.kind else { continue }
      let status = child.status
      let mode = UInt16(truncatingIfNeeded: status.permissions.rawValue)
      let path = stack[top].path
      let childPath = path.isEmpty ? child.name : "\(path)/\(child.name)"
      let childAbsolute = stack[top].absolute.appending(child.rawName)
      var item: SyncIndex.Entry
      switch kind {
      case .directory:
        stack.append(
          try ScanLevel(
            listing: list(childAbsolute), absolute: childAbsolute, path: childPath, known: old.directories[childPath]))
        continue  // its entry is added when it is finished
      case .symlink:
        item = SyncIndex.Entry(
          entry: SyncEntry(kind: .symlink, mode: mode, size: 0, reference: child.destination ?? ""), device: 0,
          inode: 0, time: FileTime(seconds: 0))
      case .file:
        item = SyncIndex.Entry(
          entry: SyncEntry(kind: .file, mode: mode, size: status.size, reference: ""), device: status.device,
          inode: status.inode, time: status.modificationTime)
        if let before = stack[top].known?.entries[child.name], before.entry.kind == .file,
          before.device == item.device, before.inode == item.inode, before.time == item.time,
          before.entry.size == item.entry.size
        {
          item.entry.reference = before.entry.reference
        } else if let known = written[childPath], known.kind == .file, known.size == status.size {
          item.entry.reference = known.reference
        } else {
          item.entry.reference = try hash(childAbsolute)
          hashed += 1
        }
        blobs[item.entry.reference] = (childPath, status.size)
      }
      stack[top].add(child, item)
    }
  }

  private func list(_ absolute: FilePath) throws -> (FileStatus, [DirectoryEntry]) {
    do { return try Syscalls.listDirectory(absolute) } catch {
      throw PackageError.io(error, "cannot list directory", path: absolute.string, context: "while syncing")
    }
  }

  /// Writes the new index in O(changed): appends the blocks of the directories that changed (a later block of a
  /// path replaces the earlier one when read), unless that would leave more than half of the file replaced blocks
  /// or a directory vanished; then it rewrites the file whole (amortised: a rewrite of N bytes follows at least
  /// N/2 bytes of appends). After changing one file of 100,000 in 1,000 directories, a push appends two blocks
  /// (about 110 KB) instead of rewriting 12 MB.
  func writeIndex(to indexPath: FilePath) throws {
    var text = ""
    var replaced = old.supersededBytes
    for path in changedPaths {
      guard let directory = new.directories[path] else { continue }
      SyncIndex.encode(path, directory, into: &text)
      replaced += old.blockBytes[path] ?? 0
    }
    let appended = text.utf8.count
    let vanished = old.directories.keys.contains { new.directories[$0] == nil }
    guard old.fileBytes > 0, !vanished, 2 * replaced <= old.fileBytes + appended else {
      try SyncFolder.writeUnsynced(new.encoded(), to: indexPath)
      return
    }
    try SyncFolder.appendUnsynced(Data(text.utf8), to: indexPath)
  }

  /// The SHA-256 of the file at `path`, read in 1 MiB chunks.
  func hash(_ path: FilePath) throws -> String {
    let file: FileDescriptor
    do { file = try FileDescriptor.open(path, .readOnly, options: [.noFollow]) } catch {
      throw PackageError(.io, "cannot open \(error) to hash it:", path: path.string)
    }
    defer { try? file.close() }
    var hasher = SHA256()
    while true {
      let count: Int
      do { count = try file.read(into: buffer) } catch {
        throw PackageError(.io, "cannot read \(error) to hash it:", path: path.string)
      }
      if count == 0 { break }
      hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
    return ContentHash.hex(hasher.finalize())
  }
}

/// A tree flattened to `path → entry` (directories included, so empty ones are kept), for three-way merging.
typealias FlatTree = [String: SyncEntry]

extension FlatTree {
  /// Flattens the tree `root` found in `trees`.
  init(root: String, trees: [String: SyncTree]) throws {
    self.init()
    var pending = [(hash: root, prefix: "")]  // an explicit stack: the tree chooses its depth
    while let (hash, prefix) = pending.popLast() {
      guard let tree = trees[hash] else {
        throw SyncError(.corrupt, "missing tree object", key: "trees/\(hash)")
      }
      for (name, entry) in tree.entries {
        let path = prefix.isEmpty ? name : "\(prefix)/\(name)"
        // A directory compares by kind and mode only: its contents are its own paths.
        self[path] =
          entry.kind == .directory ? SyncEntry(kind: .directory, mode: entry.mode, size: 0, reference: "") : entry
        if entry.kind == .directory { pending.append((entry.reference, path)) }
      }
    }
  }
}

/// One directory of a `Scanner` scan: its listing, how far it got, and what it found.
private struct ScanLevel {
  let listing: [DirectoryEntry]
  var index = 0
  let absolute: FilePath
  let path: String
  let known: SyncIndex.Directory?
  var same: Bool
  var tree = SyncTree()
  var indexed: [String: SyncIndex.Entry] = [:]

  init(listing: (FileStatus, [DirectoryEntry]), absolute: FilePath, path: String, known: SyncIndex.Directory?) {
    self.listing = listing.1
    self.absolute = absolute
    self.path = path
    self.known = known
    same = known != nil && known?.entries.count == listing.1.count
    indexed.reserveCapacity(listing.1.count)
  }

  mutating func add(_ child: DirectoryEntry, _ item: SyncIndex.Entry) {
    if same, known?.entries[child.name] != item { same = false }
    tree.entries[child.name] = item.entry
    indexed[child.name] = item
  }
}
