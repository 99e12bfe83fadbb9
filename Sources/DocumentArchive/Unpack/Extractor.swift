import DocumentPackage
import SystemPackage

/// Writes an archive's entries into a fresh, empty directory: the disk-writing consumer of an
/// ``ArchiveWalk`` (``ArchivePackage`` builds a tree from the same walk).
///
/// The walk decides what is accepted; the extractor stops at the first refused entry. Every file
/// is created relative to directory descriptors this extractor opened itself, with
/// `O_EXCL | O_NOFOLLOW`, and the walk lets no entry sit below a link, a file, or a name already
/// used: so nothing can be written outside the directory, whatever the archive says.
/// Files are in `Extractor+Files.swift`, directories in `Extractor+Directories.swift`.
final class Extractor {
  let reader: ArchiveReader
  let root: CInt
  let limits: UnpackLimits

  /// Open directories by path (about a walk's window, `DescriptorWindow`), and every directory made so far.
  var directoryFDs: [String: DirectoryHandle] = [:]
  var madeDirectories: Set<String> = []
  let pool: FileWriterPool
  let streamWriter: StreamWriter
  let rootHandle: DirectoryHandle
  var directoryAttributes: [(path: String, depth: Int, mode: UInt32, time: FileTime?)] = []
  /// The mode and time a later entry with the same bytes gives a file written before, in archive order.
  var fileAttributes: [(path: String, mode: UInt32, time: FileTime?)] = []
  var symlinks = SymlinkCheck()
  var linkTimes: [(path: String, time: FileTime)] = []
  private(set) var topLevel: [String] = []
  /// `topLevel` as a set, so that an archive with many entries at its root is not quadratic.
  private(set) var topLevelSet: Set<String> = []
  var totalBytes: Int64 = 0
  private var entriesDone = 0
  private var entriesTotal = 0
  private var bytesTotal: Int64 = 0
  private var progress: ((ArchiveProgress) -> Void)?
  private var throttle = ProgressThrottle()

  /// Checked before each entry and each chunk of data.
  let cancellation: ArchiveCancellation?
  /// Skip special files rather than stop at them.
  var skipSpecialFiles = false
  /// The special files skipped.
  private(set) var skipped: [UnpackReport.Skipped] = []
  /// Called with each top-level name when it first shows, before anything below it is written:
  /// the unpacker refuses there a name already taken in the destination.
  var checkTopLevelName: ((String) throws -> Void)?
  /// Refuses, before an entry is written, a name the destination's file system cannot hold or does
  /// not tell apart from a sibling's (`a.txt` and `A.txt` on exFAT); `nil` where it holds every name.
  var nameCheck: SiblingNameCheck?

  init(reader: ArchiveReader, root: CInt, limits: UnpackLimits, cancellation: ArchiveCancellation? = nil) {
    self.cancellation = cancellation
    self.reader = reader
    self.root = root
    self.limits = limits
    pool = FileWriterPool(archive: reader.path)
    streamWriter = StreamWriter(archive: reader.path)
    rootHandle = DirectoryHandle(fd: (try? Syscalls.duplicate(root)) ?? -1)
  }

  /// The permission bits an entry's mode keeps: all of ``EntryPolicy/keptPermissions`` for root, as tar and
  /// bsdtar keep them; for anyone else those the umask allows, as they do too.
  static let permissionMask: UInt32 =
    Syscalls.isPrivileged
    ? EntryPolicy.keptPermissions : EntryPolicy.keptPermissions & ~UInt32(FileWriterPool.umaskBits)

  /// Files up to this size are read into memory and created by the writer pool.
  static let pooledFileLimit: Int64 = 128 << 10

  var archive: String { reader.path }

  /// Extracts every entry, then sets directory modes and times and checks symbolic links.
  /// - Parameter wrapName: The folder a document zip's entries go in.
  /// - Throws: ``/DocumentPackage/PackageError``: the first refused entry's, a limit's, or a failed system call's.
  func run(wrapDocumentIn wrapName: String, progress: ((ArchiveProgress) -> Void)?) throws {
    var walk = ArchiveWalk(reader: reader, wrappingDocumentIn: wrapName)
    self.progress = progress
    // A zip's central directory gives the totals up front (a tar's are known only at its end: its
    // bar goes by the archive bytes read).
    if progress != nil, reader.format == .zip, let totals = ZipCentralDirectory.totals(path: reader.source) {
      (entriesTotal, bytesTotal) = totals
    }
    // A zip says up front how many entries it has: too many are refused before anything is written. A tar's
    // are counted as they come, and one past the limit is refused before it is written.
    if let declared = reader.zipEntryCount { try limits.checkEntryCount(declared, archive: archive) }
    var entryCount = 0
    while let entry = try walk.next() {
      try cancellation?.check(archive)
      entryCount += 1
      try limits.checkEntryCount(entryCount, archive: archive)
      if skipSpecialFiles, case .special(let what) = entry.header.kind, case .refused = entry.verdict {
        skipped.append(UnpackReport.Skipped(path: entry.header.displayName, reason: "it is a \(what)"))
        continue
      }
      try extract(entry, try entry.accepted())
      entriesDone = entryCount
      reportProgressIfDue()
    }
    try pool.flush()
    try pool.wait()
    try streamWriter.wait()
    try symlinks.validate(archive: archive, topLevel: topLevelSet)
    try finishDirectories()
    progress?(
      ArchiveProgress(
        entriesDone: entryCount, entriesTotal: entryCount, bytesDone: totalBytes, bytesTotal: totalBytes,
        archiveBytesDone: reader.archiveSize, archiveBytesTotal: reader.archiveSize))
  }

  /// Reports progress if the last report is old enough (``ProgressThrottle``): called between
  /// entries and between blocks of data, so a big file moves the bar too.
  func reportProgressIfDue() {
    guard let progress, throttle.isDue() else { return }
    progress(
      ArchiveProgress(
        entriesDone: entriesDone, entriesTotal: entriesTotal, bytesDone: totalBytes, bytesTotal: bytesTotal,
        archiveBytesDone: min(reader.compressedBytesRead, reader.archiveSize), archiveBytesTotal: reader.archiveSize))
  }

  func refuse(_ code: PackageError.Code, _ header: EntryHeader, _ reason: String) -> PackageError {
    PackageError(code, "refusing unsafe entry", path: header.displayName, context: "in '\(archive)': \(reason)")
  }

  /// Writes one accepted entry.
  private func extract(_ entry: WalkedEntry, _ content: WalkedEntry.Content) throws {
    let components = entry.components
    let path = entry.path
    let header = entry.header
    if let first = components.first, topLevel.last != first, !topLevelSet.contains(first) {
      try checkTopLevelName?(first)
      topLevelSet.insert(first)
      topLevel.append(first)
    }
    if let clash = nameCheck?.add(components) { throw clash.error("cannot unpack", "from '\(archive)'") }
    let name = components.last!
    switch content {
    case .identicalDuplicate:
      // Described again: its mode and time are set once every file is written (the writers may still hold it).
      fileAttributes.append((path, header.mode & Self.permissionMask, header.modificationTime))
    case .directory:
      _ = try directory(components)
      directoryAttributes.append((path, components.count, header.mode & Self.permissionMask, header.modificationTime))
    case .symbolicLink(let destination):
      let parent = try directory(Array(components.dropLast())).fd
      do { try Syscalls.makeSymbolicLink(in: parent, RawName(entryName: name), destination: destination) } catch {
        throw PackageError.io(error, "cannot create symbolic link", path: path, context: "in '\(archive)'")
      }
      symlinks.links[path] = destination
      if let time = header.modificationTime { linkTimes.append((path, time)) }
    case .hardLink(let target):
      try pool.flush()
      try pool.wait()
      let parent = try directory(Array(components.dropLast())).fd
      let targetParent = try directory(Array(target.dropLast())).fd
      do {
        try Syscalls.link(from: targetParent, RawName(entryName: target.last!), to: parent, RawName(entryName: name))
      } catch {
        throw PackageError.io(error, "cannot create hard link", path: path, context: "in '\(archive)'")
      }
    case .file:
      let parent = try directory(Array(components.dropLast()))
      if let size = header.size, size <= Self.pooledFileLimit {
        try pool.add(
          FileJob(
            parent: parent, name: name, path: path, data: try readSmallFile(header, size: size),
            mode: CInterop.Mode(header.mode & Self.permissionMask), time: header.modificationTime))
      } else {
        try writeFile(header, name: name, in: parent.fd, path: path)
      }
    }
  }
}
