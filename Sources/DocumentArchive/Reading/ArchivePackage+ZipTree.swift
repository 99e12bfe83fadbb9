import DocumentPackage
import SystemPackage

extension ArchivePackage {
  /// The tree ``open(_:unwrappingSingleDirectory:limits:)`` returns for the zip at `archive`, built from its
  /// central directory alone: names, kinds, sizes, permissions and modification times, with no entry's
  /// local header or data read until a file's contents are asked for. Files then read their entry with
  /// `pread`s of one descriptor shared by the tree, so a comparison may read several at once
  /// (``/DocumentPackage/FileContentSource/allowsConcurrentReads``).
  ///
  /// Returns `nil` whenever the libarchive reader might see the archive differently: not a readable
  /// zip, a local header that differs from its directory entry, anything `ZipDirectoryScan` finds unusual, an entry not made on Unix, or one whose
  /// modification time is not in an extended-timestamp field (libarchive would convert its MS-DOS
  /// time through the local time zone) or that has extra fields other than zip64, extended timestamp
  /// and Unix owner. The caller then reads the archive with libarchive.
  /// - Complexity: Two passes over the central directory, one `pread` per local header; memory for the tree.
  static func zipTree(of archive: FilePath, unwrappingSingleDirectory: Bool) -> PackageNode? {
    guard ArchiveFormat(contentsOf: archive) == .zip, let fd = try? Syscalls.openFile(archive, .readOnly) else {
      return nil
    }
    let file = ZipArchiveFile(fd: fd, path: archive.string)  // closes `fd`; shared by the files' sources
    guard let status = try? Syscalls.status(of: fd), status.kind == .file,
      let holder = try? PackageNode(
        directoryWithChildren: [:], preferredName: ArchiveUnpacker.documentFolderName(for: archive))
    else { return nil }
    var builder = ZipTreeBuilder(root: holder, file: file)
    var scan = ZipDirectoryScan()
    let summary = scan.run(fd: fd, fileSize: status.size, archive: archive.string) { header, path in
      builder.add(header, path)
    }
    guard let summary, summary.allUnixModes, !builder.failed else { return nil }
    // Every local header must say what the directory says, as before libarchive reads a zip: a
    // listing must not show an archive that reading it would refuse (the full reader says why).
    guard let directory = ZipCentralDirectory(fd: fd, fileSize: status.size),
      (try? directory.checkLocalHeaders(archive: archive.string)) != nil
    else { return nil }
    // One top-level directory: that is the package (as `open` decides).
    guard let top = try? holder.sortedChildren() else { return nil }
    if unwrappingSingleDirectory, top.count == 1, top[0].kind == .directory, !summary.isDocument {
      guard (try? holder.removeChild(top[0])) != nil else { return nil }
      return top[0]
    }
    return holder
  }
}

/// Builds the tree of a zip from its central directory headers, as `ArchiveTreeBuilder` builds it from
/// libarchive's entries: directories made for the entries below them, permissions and times set from
/// each entry that describes a path (the last description of a directory wins).
private struct ZipTreeBuilder {
  private let file: ZipArchiveFile
  private var directories: [String: PackageNode]
  /// Set when an entry cannot be built here exactly as libarchive would read it.
  private(set) var failed = false

  init(root: PackageNode, file: ZipArchiveFile) {
    self.file = file
    directories = ["": root]
  }

  /// Adds the entry `header`, whose normalized path is `path`.
  mutating func add(_ header: ZipCentralDirectory.Header, _ path: UnsafeRawBufferPointer) {
    guard !failed else { return }
    guard let time = Self.modificationTime(header) else {
      failed = true
      return
    }
    let key = String(decoding: path, as: UTF8.self)
    do {
      let node: PackageNode
      if header.isDirectory {
        node = try directory(key)
      } else {
        let (parent, name) = Self.split(key)
        node = PackageNode(regularFileWithSource: ZipListedEntrySource(file: file, entry: header.entry()))
        try directory(parent).replaceChild(named: name, with: node)
      }
      node.permissions = FilePermissions(
        rawValue: CInterop.Mode((header.externalAttributes >> 16) & EntryPolicy.keptPermissions))
      node.modificationTime = time
    } catch {
      failed = true
    }
  }

  /// The directory at `path`, creating it (and those above it) if needed, a level at a time down
  /// from the deepest one that exists.
  private mutating func directory(_ path: String) throws -> PackageNode {
    if let node = directories[path] { return node }
    var missing: [String] = [path]  // paths still to make, deepest first
    var node: PackageNode
    while true {
      let parent = Self.split(missing.last!).parent
      if let existing = directories[parent] {
        node = existing
        break
      }
      missing.append(parent)
    }
    for path in missing.reversed() {
      let child = try PackageNode(directoryWithChildren: [:])
      try node.replaceChild(named: Self.split(path).name, with: child)
      directories[path] = child
      node = child
    }
    return node
  }

  /// `path` split at its last `/`: the parent's path (empty at the top) and the name.
  private static func split(_ path: String) -> (parent: String, name: String) {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
  }

  /// The time libarchive reports for the entry when the central directory settles it: the extended
  /// timestamp's modification time (which libarchive prefers to the MS-DOS time), below 2³¹. `nil` if
  /// there is none, or another extra field that libarchive might read a time or a kind from.
  private static func modificationTime(_ header: ZipCentralDirectory.Header) -> FileTime? {
    let end = 46 + header.nameLength + header.extraLength
    var position = 46 + header.nameLength
    var seconds: UInt32?
    while position + 4 <= end {
      let id = header.u16(position)
      let length = Int(header.u16(position + 2))
      let data = position + 4
      guard data + length <= end else { return nil }
      switch id {
      case 0x0001, 0x7875:  // zip64 sizes; Info-ZIP Unix owner
        break
      case 0x5455:  // extended timestamp: flags, then the modification time if flag 1 is set
        guard seconds == nil, length >= 5, header.bytes[data] & 1 != 0 else { return nil }
        seconds = header.u32(data + 1)
      default:
        return nil
      }
      position = data + length
    }
    guard position == end, let seconds, seconds < 0x8000_0000 else { return nil }
    return FileTime(seconds: Int64(seconds))
  }
}
