import DocumentPackage
import SystemPackage

/// A zip's entries as a compact table, read from its central directory: what an archive read in place
/// keeps instead of a tree of nodes, so that the nodes of a directory are made only when it is listed
/// (``ZipIndexedListing``), and dropped again when a walk forgets the listing.
///
/// One record of 32 bytes per path (the entries, and the directories only implied by entries below
/// them), the last names of the paths back to back in one byte array, and each directory's children
/// as a range of one array of record numbers, sorted by name as ``/DocumentPackage/PackageNode/sortedChildren()``
/// sorts them. A file's record keeps where its central header is: the header is read again, with one
/// `pread`, when the file's contents are asked for. At a million entries of short names that is about
/// 50 MB, against several hundred for the nodes.
final class ZipEntryIndex {
  struct Record {
    /// The last name of the path, in ``names``.
    var nameStart: UInt32
    var nameLength: UInt16
    /// The permission bits, and ``Record/directoryBit`` for a directory.
    var mode: UInt16
    /// The modification time in seconds; ``Record/noTime`` for a directory only implied by entries below it.
    var time: UInt32
    /// A file's data size; a directory's number (its place in ``children``).
    var sizeOrDirectory: UInt64
    /// Where a file's central header starts in the archive.
    var headerPosition: Int64

    static let directoryBit: UInt16 = 0x8000
    static let noTime = UInt32.max
    var isDirectory: Bool { mode & Self.directoryBit != 0 }
  }

  /// The archive, shared by the files' sources.
  let file: ZipArchiveFile
  let directory: ZipCentralDirectory
  let records: [Record]
  let names: [UInt8]
  /// Directory `d`'s children are `childList[childStart[d]..<childStart[d + 1]]`, sorted by name.
  private let childStart: [UInt32]
  private let childList: [UInt32]

  init(
    file: ZipArchiveFile, directory: ZipCentralDirectory, records: [Record], names: [UInt8], childStart: [UInt32],
    childList: [UInt32]
  ) {
    self.file = file
    self.directory = directory
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
    let start = Int(records[record].nameStart)
    return names.withUnsafeBytes {
      String(
        decoding: UnsafeRawBufferPointer(rebasing: $0[start..<(start + Int(records[record].nameLength))]), as: UTF8.self
      )
    }
  }

  /// The node of record `record`, with no parent: a directory lists its children from this index.
  func node(of record: Int) -> PackageNode {
    let entry = records[record]
    let permissions = FilePermissions(rawValue: CInterop.Mode(entry.mode & ~Record.directoryBit))
    let time = entry.time == Record.noTime ? nil : FileTime(seconds: Int64(entry.time))
    if entry.isDirectory {
      return PackageNode(
        directoryListedBy: ZipIndexedListing(index: self, directory: Int(entry.sizeOrDirectory)),
        name: name(of: record),
        permissions: permissions, modificationTime: time)
    }
    return PackageNode(
      listedFileWithSource: ZipListedEntrySource(
        file: file, directory: directory, headerPosition: entry.headerPosition,
        size: Int64(clamping: entry.sizeOrDirectory)),
      name: name(of: record),
      permissions: permissions, modificationTime: time)
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
      } else {
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
  /// links: `false` for a zip read through its index (``ZipDirectoryScan`` sends a zip with links to the full
  /// reader), so that a caller looking for links need not list every directory.
  package static func mayHoldLinks(_ root: PackageNode) -> Bool {
    !(root.directoryListingSource is ZipIndexedListing)
  }
}

/// The children of one directory of a ``ZipEntryIndex``, made when the directory is listed.
final class ZipIndexedListing: DirectoryListingSource {
  let index: ZipEntryIndex
  let directory: Int

  init(index: ZipEntryIndex, directory: Int) {
    self.index = index
    self.directory = directory
  }

  func listChildren() throws -> [PackageNode] {
    index.children(of: directory).map { index.node(of: Int($0)) }
  }
}
