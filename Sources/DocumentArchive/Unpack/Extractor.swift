import DocumentPackage
import SystemPackage

/// Writes an archive's entries into a fresh, empty directory, refusing anything unsafe.
///
/// Every file is created relative to directory descriptors this extractor opened itself, with
/// `O_EXCL | O_NOFOLLOW`, and no entry may sit below a link, a file, or a name already used: so
/// nothing can be written outside the directory, whatever the archive says.
final class Extractor {
  private let reader: ArchiveReader
  private let root: CInt
  private let limits: UnpackLimits
  /// Prefix for every path (a document zip is unpacked into a folder named after it).
  private var prefix: [String] = []

  private enum Seen { case file, directory(explicit: Bool), symlink }
  private var seen: [String: Seen] = [:]
  private var directoryFDs: [String: DirectoryHandle] = [:]
  private let pool: FileWriterPool
  private let streamWriter: StreamWriter
  private let rootHandle: DirectoryHandle
  private var directoryAttributes: [(path: String, depth: Int, mode: UInt32, time: FileTime?)] = []
  private var symlinks = SymlinkCheck()
  private var linkTimes: [(path: String, time: FileTime)] = []
  private(set) var topLevel: [String] = []
  /// `topLevel` as a set, so that an archive with many entries at its root is not quadratic.
  private var topLevelSet: Set<String> = []
  private var entryCount = 0
  private var lastCheckedParent: String?
  private var totalBytes: Int64 = 0
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)

  init(reader: ArchiveReader, root: CInt, limits: UnpackLimits) {
    self.reader = reader
    self.root = root
    self.limits = limits
    pool = FileWriterPool(archive: reader.path)
    streamWriter = StreamWriter(archive: reader.path)
    rootHandle = DirectoryHandle(fd: (try? Syscalls.duplicate(root)) ?? -1)
  }

  deinit {
    buffer.deallocate()
  }

  /// Files up to this size are read into memory and created by the writer pool.
  static let pooledFileLimit: Int64 = 128 << 10

  private var archive: String { reader.path }

  /// Extracts every entry, then sets directory modes and times and checks symbolic links.
  func run(wrapDocumentIn wrapName: String, progress: ((ArchiveProgress) -> Void)?) throws {
    var done = ArchiveProgress(entriesDone: 0, entriesTotal: 0, bytesDone: 0, bytesTotal: 0)
    while let header = try reader.next() {
      entryCount += 1
      if entryCount > limits.maxEntryCount {
        throw PackageError(.limitExceeded, "too many entries in", path: archive,
                           context: "(more than \(limits.maxEntryCount); raise the limit to allow it)")
      }
      var components = try EntryPolicy.components(of: header, archive: archive)
      if entryCount == 1, components == ["mimetype"], header.kind == .file {
        prefix = [wrapName]  // ODF / EPUB: the entries are the document's contents.
      }
      components = prefix + components
      try extract(header, components)
      done.entriesDone = entryCount
      done.bytesDone = totalBytes
      if entryCount % 256 == 0 || (header.size ?? 0) > 1 << 20 { progress?(done) }
    }
    try pool.flush()
    try pool.wait()
    try streamWriter.wait()
    try symlinks.validate(archive: archive)
    try finishDirectories()
    progress?(done)
  }

  private func refuse(_ code: PackageError.Code, _ header: EntryHeader, _ reason: String) -> PackageError {
    PackageError(code, "refusing unsafe entry", path: header.displayName, context: "in '\(archive)': \(reason)")
  }

  private func extract(_ header: EntryHeader, _ components: [String]) throws {
    let path = components.joined(separator: "/")
    // Nothing may be below a link or a file. (Entries of one directory usually come together:
    // its ancestors were checked for the previous entry.)
    let parentPath = components.count > 1 ? String(path.utf8.prefix(path.utf8.count - components.last!.utf8.count - 1))! : ""
    var ancestor = ""
    for component in components.dropLast() where parentPath != lastCheckedParent {
      ancestor = ancestor.isEmpty ? component : ancestor + "/" + component
      switch seen[ancestor] {
      case .symlink?: throw refuse(.invalidArgument, header, "it would be written through the symbolic link '\(ancestor)'")
      case .file?: throw refuse(.invalidArgument, header, "'\(ancestor)' is a file, not a directory")
      default: break
      }
    }
    lastCheckedParent = parentPath
    if let previous = seen[path] {
      if case .directory(let explicit) = previous, !explicit, header.kind == .directory {
        // A directory created for earlier entries, now described: fine.
      } else {
        throw refuse(.corrupt, header, "a second entry has the same path")
      }
    }
    if let first = components.first, topLevel.last != first, topLevelSet.insert(first).inserted { topLevel.append(first) }
    let name = components.last!
    switch header.kind {
    case .special(let what):
      throw refuse(.unsupported, header, "it is a \(what); only files, directories and links are extracted")
    case .directory:
      _ = try directory(components)
      seen[path] = .directory(explicit: true)
      directoryAttributes.append((path, components.count, header.mode & 0o777, header.modificationTime))
    case .symlink:
      let parent = try directory(Array(components.dropLast())).fd
      let destination = header.linkTarget ?? ""
      guard !destination.isEmpty else { throw refuse(.corrupt, header, "the symbolic link has no destination") }
      do { try Syscalls.makeSymbolicLink(in: parent, RawName(name), destination: destination) } catch {
        throw PackageError.io(error, "cannot create symbolic link", path: path, context: "in '\(archive)'")
      }
      seen[path] = .symlink
      symlinks.links[path] = destination
      if let time = header.modificationTime { linkTimes.append((path, time)) }
    case .hardlink:
      guard let target = header.linkTarget else { throw refuse(.corrupt, header, "the hard link has no target") }
      try EntryPolicy.validate(target) { code, reason in refuse(code, header, "its hard link target is unsafe (\(reason))") }
      let targetPath = (prefix + target.split(separator: "/").map(String.init)).joined(separator: "/")
      guard case .file? = seen[targetPath] else {
        throw refuse(.invalidArgument, header, "it is a hard link to '\(target)', which is not a file extracted before it")
      }
      try pool.flush()
      try pool.wait()
      let parent = try directory(Array(components.dropLast())).fd
      let targetComponents = targetPath.split(separator: "/").map(String.init)
      let targetParent = try directory(Array(targetComponents.dropLast())).fd
      do { try Syscalls.link(from: targetParent, RawName(targetComponents.last!), to: parent, RawName(name)) } catch {
        throw PackageError.io(error, "cannot create hard link", path: path, context: "in '\(archive)'")
      }
      seen[path] = .file
    case .file:
      let parent = try directory(Array(components.dropLast()))
      if let size = header.size, size <= Self.pooledFileLimit {
        try pool.add(FileJob(parent: parent, name: name, path: path, data: try readSmallFile(header, size: size),
                             mode: CInterop.Mode(header.mode & 0o777), time: header.modificationTime))
      } else {
        try writeFile(header, name: name, in: parent.fd, path: path)
      }
      seen[path] = .file
    }
  }

  /// Streams a large file: this thread inflates, ``StreamWriter`` writes.
  private func writeFile(_ header: EntryHeader, name: String, in parent: CInt, path: String) throws {
    let fd: CInt
    do { fd = try Syscalls.createFile(in: parent, RawName(name)) } catch {
      throw PackageError.io(error, "cannot create", path: path, context: "in '\(archive)'")
    }
    let file = OpenFile(fd: fd, path: path)
    var written: Int64 = 0
    func zeros(_ count: Int64) throws {
      // A hole in a sparse tar entry.
      try checkLimits(adding: count, header)
      let block = [UInt8](repeating: 0, count: Int(min(count, 1 << 20)))
      var left = count
      while left > 0 {
        let n = Int(min(left, Int64(block.count)))
        try block.withUnsafeBytes { try streamWriter.append(UnsafeRawBufferPointer(rebasing: $0[..<n]), to: file) }
        left -= Int64(n)
      }
      written += count
    }
    try reader.readData { block, offset in
      if offset > written { try zeros(offset - written) }
      try checkLimits(adding: Int64(block.count), header)
      try streamWriter.append(block, to: file)
      written += Int64(block.count)
    }
    if let size = header.size, written != size {
      if written < size, reader.format.isTar {
        try zeros(size - written)  // a sparse tar entry ending in a hole
      } else {
        throw refuse(.corrupt, header, "its header says \(size) bytes but its data has \(written)")
      }
    }
    streamWriter.finish(file, mode: CInterop.Mode(header.mode & 0o777), time: header.modificationTime)
  }

  private func checkLimits(adding count: Int64, _ header: EntryHeader) throws {
    totalBytes += count
    if totalBytes > limits.maxTotalSize {
      throw PackageError(.limitExceeded, "archive expands to more than \(limits.maxTotalSize) bytes:", path: archive,
                         context: "(at entry '\(header.displayName)'; raise the limit to allow it)")
    }
    if totalBytes > UnpackLimits.ratioGrace, Double(totalBytes) > limits.maxCompressionRatio * Double(max(reader.archiveSize, 1)) {
      throw PackageError(.limitExceeded, "archive expands more than \(Int(limits.maxCompressionRatio)) times its size:",
                         path: archive, context: "(at entry '\(header.displayName)'; a zip bomb? raise the limit to allow it)")
    }
  }

  /// A small file's contents, checked against its declared size and the limits.
  private func readSmallFile(_ header: EntryHeader, size: Int64) throws -> [UInt8] {
    var data: [UInt8] = []
    data.reserveCapacity(Int(size))
    try reader.readData { block, offset in
      if offset > Int64(data.count) {
        try checkLimits(adding: offset - Int64(data.count), header)
        data.append(contentsOf: repeatElement(0, count: Int(offset) - data.count))
      }
      try checkLimits(adding: Int64(block.count), header)
      guard data.count + block.count <= Int(size) else {
        throw refuse(.corrupt, header, "its data is longer than the \(size) bytes its header says")
      }
      data.append(contentsOf: block)
    }
    if data.count < Int(size) {
      guard reader.format.isTar else {
        throw refuse(.corrupt, header, "its header says \(size) bytes but its data has \(data.count)")
      }
      data.append(contentsOf: repeatElement(0, count: Int(size) - data.count))  // a sparse tar entry ending in a hole
    }
    return data
  }

  /// The directory at `components`, creating it (and those above it) if needed.
  private func directory(_ components: [String]) throws -> DirectoryHandle {
    if components.isEmpty { return rootHandle }
    let path = components.joined(separator: "/")
    if let fd = directoryFDs[path] { return fd }
    let parent = try directory(Array(components.dropLast())).fd
    let name = components.last!
    switch seen[path] {
    case nil:
      do { try Syscalls.makeDirectory(in: parent, RawName(name), mode: 0o700) } catch {
        throw PackageError.io(error, "cannot create directory", path: path, context: "in '\(archive)'")
      }
      seen[path] = .directory(explicit: false)
      directoryAttributes.append((path, components.count, 0o755, nil))
    case .directory?: break
    default:
      throw PackageError(.invalidArgument, "refusing unsafe entry", path: path, context: "in '\(archive)': it is not a directory")
    }
    if directoryFDs.count >= 64 {
      directoryFDs.removeAll(keepingCapacity: true)
      return try directory(components)
    }
    let fd: CInt
    do { fd = try Syscalls.openDirectory(in: parent, RawName(name)) } catch {
      throw PackageError.io(error, "cannot open directory", path: path, context: "in '\(archive)'")
    }
    let handle = DirectoryHandle(fd: fd)
    directoryFDs[path] = handle
    return handle
  }

  /// Sets each directory's mode and time, deepest first (a read-only directory is filled before
  /// it becomes read-only), and each link's time.
  private func finishDirectories() throws {
    directoryFDs.removeAll()
    for (path, time) in linkTimes {
      let components = path.split(separator: "/").map(String.init)
      let parent = try directory(Array(components.dropLast())).fd
      try? Syscalls.setModificationTime(in: parent, RawName(components.last!), time)
    }
    // Latest description wins for directories listed twice (implicit, then explicit).
    var attributes: [String: (depth: Int, mode: UInt32, time: FileTime?)] = [:]
    for item in directoryAttributes { attributes[item.path] = (item.depth, item.mode, item.time) }
    directoryFDs.removeAll()
    for (path, item) in attributes.sorted(by: { $0.value.depth > $1.value.depth }) {
      let components = path.split(separator: "/").map(String.init)
      let parent = try directory(Array(components.dropLast())).fd
      do {
        let fd = try Syscalls.openDirectory(in: parent, RawName(components.last!))
        defer { Syscalls.closeFile(fd) }
        if let time = item.time { try Syscalls.setModificationTime(fd, time) }
        try Syscalls.setMode(fd, CInterop.Mode(item.mode))
      } catch {
        throw PackageError.io(error, "cannot set attributes of", path: path, context: "in '\(archive)'")
      }
    }
    directoryFDs.removeAll()
  }
}
