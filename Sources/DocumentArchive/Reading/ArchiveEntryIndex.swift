import DocumentPackage
import SystemPackage

/// An archive's entries as a compact table: what an archive read in place keeps instead of a tree of
/// nodes, so that the nodes of a directory are made only when it is listed (``ArchiveIndexedListing``),
/// and dropped again when a walk forgets the listing. ``ArchiveIndexBuilder`` makes it from a zip's central
/// directory; the table of the paths a walk of any other archive accepted becomes it (``WalkedPaths``).
///
/// One record of 40 bytes per path (the entries, and the directories only implied by entries below
/// them), with its parent's record, the last names of the paths (and the destinations of symbolic links) back to back in one byte
/// array, and each directory's children as a range of one array of record numbers, sorted by name as
/// ``/DocumentPackage/PackageNode/sortedChildren()`` sorts them. A file's record keeps where its contents
/// are found again: a zip's central header, read again with one `pread`, or a tar's entry number, read
/// through the archive's shared ``ArchiveCursor``. At a million entries of short names that is about
/// 60 MB, against several hundred for the nodes.
final class ArchiveEntryIndex {
  struct Record {
    /// The last name of the path, in ``names``; a symbolic link's destination follows it there.
    var nameStart: UInt32
    var nameLength: UInt16
    /// The permission bits, and ``Record/directoryBit`` or ``Record/symbolicLinkBit`` for those kinds.
    var mode: UInt16
    /// Nanoseconds past ``seconds``; ``Record/noTime`` when the entry has no modification time.
    var nanoseconds: UInt32
    /// The parent directory's record; ``Record/topLevel`` for a path at the top level. (It fills what would be
    /// padding: a record is 40 bytes with it or without.)
    var parent: UInt32
    var seconds: Int64
    /// A file's data size; a directory's number (its place in ``children``); a link's destination's length.
    var sizeOrDirectory: UInt64
    /// Where a file's contents are found again: see ``ArchiveEntryIndex/Contents``.
    var position: Int64

    static let directoryBit: UInt16 = 0x8000
    static let symbolicLinkBit: UInt16 = 0x4000
    static let noTime = UInt32.max
    static let topLevel = UInt32.max
    var isDirectory: Bool { mode & Self.directoryBit != 0 }
    var isSymbolicLink: Bool { mode & Self.symbolicLinkBit != 0 }
    var permissions: FilePermissions {
      FilePermissions(rawValue: CInterop.Mode(mode & 0o7777))
    }
    var modificationTime: FileTime? {
      nanoseconds == Self.noTime ? nil : FileTime(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }
  }

  /// Where the files' contents come from, shared by their sources.
  enum Contents {
    /// A zip read through its central directory: a record's position is where its central header starts.
    case zip(ZipArchiveFile, ZipCentralDirectory)
    /// An archive read through libarchive: a record's position is the number of the entry holding its data.
    case entries(ArchiveCursor)
  }

  let contents: Contents
  let records: [Record]
  let names: [UInt8]
  /// Directory `d`'s children are `childList[childStart[d]..<childStart[d + 1]]`, sorted by name.
  private let childStart: [UInt32]
  private let childList: [UInt32]

  /// The index of `records`, each with its parent's record, a directory's `sizeOrDirectory` its number (from 1 up
  /// to `directoryCount - 1`; 0 is the top level), and `names` their names: each directory's children gathered (a
  /// counting sort by directory) and sorted by name.
  init(contents: Contents, records: [Record], names: [UInt8], directoryCount: Int) {
    func directory(of record: Record) -> Int {
      record.parent == Record.topLevel ? 0 : Int(records[Int(record.parent)].sizeOrDirectory)
    }
    var childStart = [UInt32](repeating: 0, count: directoryCount + 1)
    for record in records { childStart[directory(of: record) + 1] += 1 }
    for number in 0..<directoryCount { childStart[number + 1] += childStart[number] }
    var next = childStart
    var childList = [UInt32](repeating: 0, count: records.count)
    for (number, record) in records.enumerated() {
      let directory = directory(of: record)
      childList[Int(next[directory])] = UInt32(number)
      next[directory] += 1
    }
    names.withUnsafeBytes { names in
      func name(_ record: UInt32) -> UnsafeRawBufferPointer {
        let entry = records[Int(record)]
        return UnsafeRawBufferPointer(
          rebasing: names[Int(entry.nameStart)..<(Int(entry.nameStart) + Int(entry.nameLength))])
      }
      for number in 0..<directoryCount {
        childList[Int(childStart[number])..<Int(childStart[number + 1])].sort {
          ZipPathTable.order(name($0), name($1)) < 0
        }
      }
    }
    self.contents = contents
    self.records = records
    self.names = names
    self.childStart = childStart
    self.childList = childList
  }

  /// The records of directory number `directory`'s children, sorted by name.
  func children(of directory: Int) -> ArraySlice<UInt32> {
    childList[Int(childStart[directory])..<Int(childStart[directory + 1])]
  }

  /// The last name of record `record`.
  func name(of record: Int) -> String {
    text(from: Int(records[record].nameStart), count: Int(records[record].nameLength))
  }

  private func text(from start: Int, count: Int) -> String {
    names.withUnsafeBytes {
      String(decoding: UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)]), as: UTF8.self)
    }
  }

  /// The node of record `record`, with no parent: a directory lists its children from this index.
  func node(of record: Int) -> PackageNode {
    let entry = records[record]
    if entry.isDirectory {
      return PackageNode(
        directoryListedBy: ArchiveIndexedListing(index: self, directory: Int(entry.sizeOrDirectory)),
        name: name(of: record), permissions: entry.permissions, modificationTime: entry.modificationTime)
    }
    if entry.isSymbolicLink {
      let destination = text(
        from: Int(entry.nameStart) + Int(entry.nameLength), count: Int(clamping: entry.sizeOrDirectory))
      return PackageNode(
        listedSymbolicLinkTo: destination, name: name(of: record), modificationTime: entry.modificationTime)
    }
    let size = Int64(clamping: entry.sizeOrDirectory)
    let source: any FileContentSource
    switch contents {
    case .zip(let file, let directory):
      source = ZipListedEntrySource(file: file, directory: directory, headerPosition: entry.position, size: size)
    case .entries(let cursor):
      source = ArchiveEntrySource(cursor: cursor, index: Int(entry.position), size: size)
    }
    return PackageNode(
      listedFileWithSource: source, name: name(of: record), permissions: entry.permissions,
      modificationTime: entry.modificationTime)
  }

  /// The record at `path` (components below the top level), if there is one: a binary search of each
  /// directory's children, sorted by their bytes, on the way down.
  func record(at path: [String]) -> Int? {
    var directory = 0
    var found: Int?
    for component in path {
      guard found.map({ records[$0].isDirectory }) ?? true else { return nil }
      if let found { directory = Int(records[found].sizeOrDirectory) }
      let children = children(of: directory)
      var (low, high) = (children.startIndex, children.endIndex)
      let wanted = Array(component.utf8)
      while low < high {
        let middle = (low + high) / 2
        let entry = records[Int(children[middle])]
        let order = names.withUnsafeBytes { names in
          wanted.withUnsafeBytes {
            ZipPathTable.order(
              UnsafeRawBufferPointer(
                rebasing: names[Int(entry.nameStart)..<(Int(entry.nameStart) + Int(entry.nameLength))]), $0)
          }
        }
        if order < 0 { low = middle + 1 } else { high = middle }
      }
      if low < children.endIndex, name(of: Int(children[low])) == component {
        found = Int(children[low])
      } else {
        // Not the same bytes: a name equal to it as a `String` (canonically equivalent), as a tree's keys match.
        guard let equal = children.first(where: { name(of: Int($0)) == component }) else { return nil }
        found = Int(equal)
      }
    }
    return found
  }

  /// The root of the tree read in place from `archive`: its single top-level directory when there is one and
  /// `unwrappingSingleDirectory`, otherwise a directory named after the archive that holds the top level.
  /// - Throws: When `limits` are given and the tree below that root exceeds them (see ``check(below:against:archive:)``).
  func root(of archive: FilePath, unwrappingSingleDirectory: Bool, limits: UnpackLimits?) throws -> PackageNode {
    let top = children(of: 0)
    if unwrappingSingleDirectory, top.count == 1, let only = top.first.map(Int.init), records[only].isDirectory {
      if let limits { try check(below: Int(records[only].sizeOrDirectory), against: limits, archive: archive) }
      return node(of: only)
    }
    if let limits { try check(below: 0, against: limits, archive: archive) }
    return PackageNode(
      directoryListedBy: ArchiveIndexedListing(index: self, directory: 0),
      name: ArchiveUnpacker.documentFolderName(for: archive),
      permissions: [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute], modificationTime: nil)
  }

  /// Refuses the tree below directory number `top` as ``ArchivePackage`` refuses a tree of nodes that exceeds
  /// `limits`: its entries in the order a walk of the nodes meets them, with no node made.
  /// (An explicit stack of the directories on the way: the depth is the archive's.)
  func check(below top: Int, against limits: UnpackLimits, archive: FilePath) throws {
    let archiveSize = (try? Syscalls.statusFollowing(archive).size) ?? 0
    var (entries, expanded) = (0, Int64(0))
    var stack: [(children: ArraySlice<UInt32>, path: String)] = [(children(of: top), "")]
    while !stack.isEmpty {
      guard let record = stack[stack.count - 1].children.popFirst().map(Int.init) else {
        stack.removeLast()
        continue
      }
      let parentPath = stack[stack.count - 1].path
      func path() -> String { parentPath.isEmpty ? name(of: record) : parentPath + "/" + name(of: record) }
      entries += 1
      try limits.checkEntryCount(entries, archive: archive.string)
      let entry = records[record]
      if entry.isDirectory {
        stack.append((children(of: Int(entry.sizeOrDirectory)), path()))
      } else if !entry.isSymbolicLink {
        expanded += Int64(clamping: entry.sizeOrDirectory)
        // The entry's path is made only for the error (the rule is the unpacker's own).
        do { try limits.checkExpansion(expanded, archiveSize: archiveSize, archive: archive.string, entry: "") } catch {
          try limits.checkExpansion(expanded, archiveSize: archiveSize, archive: archive.string, entry: path())
        }
      }
    }
  }
}

extension ArchivePackage {
  /// Whether the tree `root`, which ``open(_:unwrappingSingleDirectory:limits:)`` returned, may hold symbolic
  /// links: `false` for a zip read through its central directory (``ZipDirectoryScan`` sends a zip with links to
  /// the full reader), so that a caller looking for links need not list every directory.
  package static func mayHoldLinks(_ root: PackageNode) -> Bool {
    guard let listing = root.directoryListingSource as? ArchiveIndexedListing, case .zip = listing.index.contents
    else { return true }
    return false
  }
}

/// The children of one directory of an ``ArchiveEntryIndex``, made when the directory is listed.
final class ArchiveIndexedListing: DirectoryListingSource {
  let index: ArchiveEntryIndex
  let directory: Int

  init(index: ArchiveEntryIndex, directory: Int) {
    self.index = index
    self.directory = directory
  }

  func listChildren() throws -> [PackageNode] {
    index.children(of: directory).map { index.node(of: Int($0)) }
  }
}
