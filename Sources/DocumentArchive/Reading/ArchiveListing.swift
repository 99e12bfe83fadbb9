import DocumentPackage
import SystemPackage

/// One entry of an archive as listed by ``ArchiveListing``, with why unpacking would refuse it.
public struct ArchiveListingEntry: Sendable, Hashable {
  /// What the header says the entry is.
  public enum Kind: String, Sendable, Hashable {
    case file, directory, symlink, hardlink
    /// A device, FIFO or socket (``ArchiveListingEntry/special`` says which).
    case special
  }

  /// The path as decoded (bytes that are not UTF-8 as U+F780–U+F7FF), without a trailing `/`.
  public var path: String
  /// The kind of entry.
  public var kind: Kind
  /// For a special entry: "FIFO", "character device", "block device", "socket".
  public var special: String?
  /// The declared size, if the header has one; a symbolic link's is its destination's length in bytes.
  public var size: Int64?
  /// Permission bits, as ``ArchiveUnpacker`` would set them before the umask: set-id and sticky bits are not kept, and
  /// a hard link to an accepted file has that file's (one file under two names).
  public var mode: UInt32
  /// A symbolic link's destination, or a hard link's target.
  public var target: String?
  /// Why ``ArchiveUnpacker`` would refuse this entry (in words), or `nil` if it would not.
  public var refused: String?
}

/// Lists every entry of an archive, refused ones too — what a person does with a suspicious archive.
///
///     for entry in try ArchiveListing.entries(of: "/tmp/odd.tar") where entry.refused != nil {
///       print(entry.path, entry.refused!)
///     }
///
/// Entries are judged by the same walk as unpacking and reading in place (and links by the same
/// check), so an entry is marked exactly when ``ArchiveUnpacker`` would refuse it. Data is not
/// read: a bad CRC or truncated data shows only when the entry is extracted or read.
public enum ArchiveListing {
  /// The entries in archive order.
  /// - Throws: ``/DocumentPackage/PackageError`` if the archive cannot be opened or a header cannot be read.
  /// - Complexity: O(*n*) for *n* entries (headers only).
  public static func entries(of archive: FilePath) throws -> [ArchiveListingEntry] {
    let reader = try ArchiveReader(path: archive.string)
    var walk = ArchiveWalk(reader: reader, wrappingDocumentIn: nil)
    var result: [ArchiveListingEntry] = []
    var links = SymlinkCheck()
    var linkIndexes: [(index: Int, path: String, destination: String)] = []
    var topLevel: Set<String> = []
    var files: [String: (mode: UInt32, size: Int64?)] = [:]  // accepted files', for hard links to them
    let prefix = "in '\(reader.path)': "
    while let walked = try walk.next() {
      let header = walked.header
      var entry = ArchiveListingEntry(
        path: walked.components.isEmpty ? header.displayName : walked.path, kind: .file, special: nil,
        size: header.size, mode: header.mode & EntryPolicy.keptPermissions, target: header.linkTarget, refused: nil)
      switch header.kind {
      case .file: entry.kind = .file
      case .directory: entry.kind = .directory
      case .symlink:
        entry.kind = .symlink
        entry.mode = 0o777  // what a symbolic link has on Linux, whatever its header says
        // Its destination's length in bytes, as `ls -l` and `find -ls` give a link's size (a tar header says 0).
        entry.size = header.linkTarget.map { Int64(RawByteNames.encode($0).count) } ?? header.size
      case .hardlink: entry.kind = .hardlink
      case .special(let what):
        entry.kind = .special
        entry.special = what
      }
      switch walked.verdict {
      case .refused(let error):
        entry.refused = error.context.hasPrefix(prefix) ? String(error.context.dropFirst(prefix.count)) : error.message
      case .accepted(let content):
        if let first = walked.components.first { topLevel.insert(first) }
        switch content {
        case .symbolicLink(let destination):
          links.links[walked.path] = destination
          linkIndexes.append((result.count, walked.path, destination))
        case .file, .identicalDuplicate: files[walked.path] = (entry.mode, entry.size)
        case .hardLink(let target):
          // One file under two names, as unpacking makes it: the target's mode and size, and its name as listed
          // (`./a` in the header is the entry `a`, as a name would be).
          entry.target = target.joined(separator: "/")
          if let file = files[entry.target!] { (entry.mode, entry.size) = file }
          files[walked.path] = (entry.mode, entry.size)
        case .directory: break
        }
      }
      result.append(entry)
    }
    links.rootIsPackage = walk.isDocument
    for link in linkIndexes {
      result[link.index].refused = links.problem(path: link.path, destination: link.destination, topLevel: topLevel)
    }
    return result
  }
}

extension ArchiveListingEntry {
  /// ``mode``'s permission bits as four octal digits (`0644`), as listings show them.
  package var octalMode: String { FilePermissions(rawValue: CInterop.Mode(mode & 0o7777)).octal }
}

extension EntrySummary {
  /// The entry an archive's header describes, as `inspect --json` lists it.
  package init(_ entry: ArchiveListingEntry) {
    self.init(
      path: entry.path, kind: entry.kind.rawValue, size: entry.size ?? 0, mode: entry.octalMode,
      target: entry.target, special: entry.special, refused: entry.refused)
  }
}
