import DocumentPackage

/// The one policy for walking an archive's entries, shared by reading in place and unpacking.
///
/// It reads each header and judges the entry, yielding a ``WalkedEntry`` with a verdict rather
/// than throwing at the first bad one (a listing can show refused entries too). The rules:
/// - names must pass ``EntryPolicy`` (UTF-8, relative, no `..`, no control characters, not too long);
/// - a directory is implied by the entries below it, and may be described later, even several times;
/// - no entry may share a path with an earlier one, except a directory described again and a file
///   whose bytes are identical to the earlier one's (compared up to a budget), which is skipped; nor
///   sit below a symbolic link or a file;
/// - a hard link must point (by a safe path) at a file accepted before it;
/// - devices, FIFOs and sockets are refused, as are symbolic links without a destination, and encrypted entries
///   (their data cannot be read: refused here, so that a listing marks them and serving refuses the archive whole);
/// - a document zip (ODF, EPUB: a file `mimetype` first) is wrapped in a folder named after it,
///   when the walk is asked to.
///
/// A refused entry leaves the walk's state as it was. Only a damaged archive (a header libarchive
/// cannot read) ends the walk with a thrown error.
struct ArchiveWalk {
  let reader: ArchiveReader
  /// The folder to wrap a document zip's entries in, or `nil` to leave them at the root.
  private let documentFolder: String?
  /// Whether the first entry is a file named `mimetype` (ODF, EPUB).
  private(set) var isDocument = false
  /// Prefix of every path (the document folder, once the first entry said so).
  private var prefix: [String] = []
  private var index = -1

  /// Bytes still allowed for comparing duplicate file entries (each comparison reads both entries).
  private var duplicateBudget = Self.duplicateBudgetBytes
  /// The most bytes compared for duplicate file entries in one walk: enough for zip tools' habits,
  /// too little for a bomb of duplicates.
  static let duplicateBudgetBytes: Int64 = 64 << 20
  /// Every path accepted, and the directories they imply: the index of the archive read in place, once the walk
  /// ends (``index(contents:)``).
  private var seen = WalkedPaths()
  /// The parent whose ancestors were checked last, and its record: entries of one directory usually come together.
  private var lastCheckedParent: (components: ArraySlice<String>, record: UInt32)?

  init(reader: ArchiveReader, wrappingDocumentIn documentFolder: String?) {
    self.reader = reader
    self.documentFolder = documentFolder
  }

  private var archive: String { reader.path }

  /// The next entry and its verdict, or `nil` at the end.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `corrupt` or `io`) if the archive cannot be read.
  mutating func next() throws -> WalkedEntry? {
    var header: EntryHeader
    var components: [String]
    repeat {
      guard let nextHeader = try reader.next() else { return nil }
      header = nextHeader
      index += 1
      do { components = try EntryPolicy.components(of: header, archive: archive) } catch let error as PackageError {
        return WalkedEntry(header: header, index: index, components: [], verdict: .refused(error))
      }
      // A directory named `./` (or `.`) is the archive's root, as `tar -C DIR .` writes it: not an
      // entry (GNU tar, bsdtar and Python extract into it); its mode and time are not applied.
    } while components.isEmpty && header.kind == .directory && !header.rawName.isEmpty
    guard !components.isEmpty else {
      return WalkedEntry(
        header: header, index: index, components: [],
        verdict: .refused(refuse(.invalidName, header, "it has an empty name")))
    }
    if index == 0, components == ["mimetype"], header.kind == .file {
      isDocument = true
      if let documentFolder { prefix = [documentFolder] }
    }
    components = prefix + components
    let verdict: WalkedEntry.Verdict
    if let damage = header.damage {
      verdict = .refused(refuse(.corrupt, header, damage))
    } else if header.encrypted {
      verdict = .refused(
        PackageError(
          .unsupported, "cannot read entry", path: header.displayName,
          context: "in '\(archive)': it is encrypted (docpkg does not decrypt: a passphrase would be required)"))
    } else {
      do { verdict = .accepted(try judge(header, components)) } catch let error as PackageError {
        verdict = .refused(error)
      }
    }
    return WalkedEntry(header: header, index: index, components: components, verdict: verdict)
  }

  private func refuse(_ code: PackageError.Code, _ header: EntryHeader, _ reason: String) -> PackageError {
    PackageError(code, "refusing unsafe entry", path: header.displayName, context: "in '\(archive)': \(reason)")
  }

  /// Checks one entry against the entries before it, and records it if accepted.
  private mutating func judge(_ header: EntryHeader, _ components: [String]) throws -> WalkedEntry.Content {
    let parentComponents = components.dropLast()
    // The parent's record, when every directory on the way is recorded (else `nil`: the rest are not either).
    var parent: UInt32? = WalkedPaths.root
    if let last = lastCheckedParent, last.components.elementsEqual(parentComponents) {
      parent = last.record
    } else {
      for (level, component) in parentComponents.enumerated() {
        guard let found = seen.find(component, in: parent!) else {
          parent = nil
          break
        }
        func ancestor() -> String { components[...level].joined(separator: "/") }
        switch seen.kind(found) {
        case .symbolicLink:
          throw refuse(.invalidArgument, header, "it would be written through the symbolic link '\(ancestor())'")
        case .file: throw refuse(.invalidArgument, header, "'\(ancestor())' is a file, not a directory")
        case .directory: parent = found
        }
      }
    }
    let existing = parent.flatMap { seen.find(components.last!, in: $0) }
    if let existing {
      if let (index, size) = seen.file(existing), header.kind == .file, let size, header.size == size,
        size <= duplicateBudget
      {
        duplicateBudget -= size
        if try sameContents(asEntry: index, size: size) {
          seen.describeFileAgain(existing, permissions: permissions(header), time: header.modificationTime)
          return .identicalDuplicate(earlier: index)
        }
      }
      guard seen.kind(existing) == .directory, header.kind == .directory else {
        throw refuse(.corrupt, header, "a second entry has the same path")
      }
      // A directory implied by earlier entries, now described, or described again (zip tools
      // emit `a/b/` twice): harmless, the last description's mode and time win.
    }
    let content: WalkedEntry.Content
    var linkedFile = WalkedPaths.root
    switch header.kind {
    case .special(let what):
      throw refuse(.unsupported, header, "it is a \(what); only files, directories and links are accepted")
    case .directory:
      content = .directory
    case .symlink:
      guard let destination = header.linkTarget, !destination.isEmpty else {
        throw refuse(.corrupt, header, "the symbolic link has no destination")
      }
      content = .symbolicLink(destination: destination)
    case .hardlink:
      guard let target = header.linkTarget else { throw refuse(.corrupt, header, "the hard link has no target") }
      try EntryPolicy.validate(target) { code, reason in
        refuse(code, header, "its hard link target is unsafe (\(reason))")
      }
      let targetComponents = prefix + target.split(separator: "/").map(String.init).filter { $0 != "." }
      var found: UInt32? = WalkedPaths.root
      for component in targetComponents { found = found.flatMap { seen.find(component, in: $0) } }
      guard let found, found != WalkedPaths.root, seen.kind(found) == .file else {
        throw refuse(.invalidArgument, header, "it is a hard link to '\(target)', which is not a file before it")
      }
      // The file's path as its own entry spells it: a target spelled another, canonically equivalent way (`e` and a
      // combining accent for `é`) names the same file, whose name on disk has the file entry's bytes.
      content = .hardLink(target: seen.components(of: found))
      linkedFile = found
    case .file:
      content = .file
    }
    // Accepted: record it and the directories it implies.
    if parent == nil {
      var above = WalkedPaths.root
      for component in parentComponents {
        guard let record = seen.add(component, in: above) else { throw full(header) }
        above = record
      }
      parent = above
    }
    lastCheckedParent = (parentComponents, parent!)
    let name = components.last!
    let time = header.modificationTime
    switch content {
    case .file:
      guard let record = existing ?? seen.add(name, in: parent!) else { throw full(header) }
      seen.setFile(record, entry: index, size: header.size, permissions: permissions(header), time: time)
    case .hardLink:
      guard let record = existing ?? seen.add(name, in: parent!) else { throw full(header) }
      seen.setHardLink(record, to: linkedFile)
    case .identicalDuplicate: break
    case .directory:
      guard let record = existing ?? seen.add(name, in: parent!) else { throw full(header) }
      seen.setDirectory(record, permissions: permissions(header), time: time)
    case .symbolicLink(let destination):
      guard seen.addSymbolicLink(name, in: parent!, to: destination, time: time) != nil else { throw full(header) }
    }
    return content
  }

  /// The permission bits an entry's file or directory gets: set-id and sticky bits are not kept.
  private func permissions(_ header: EntryHeader) -> UInt16 { UInt16(header.mode & EntryPolicy.keptPermissions) }

  /// The paths the walk accepted, as the index of the archive read in place, their contents found through
  /// `contents`: call once, when ``next()`` has returned `nil`. The walk's table of paths becomes the index (it is not
  /// copied): an archive of a million entries is held once, not twice.
  mutating func index(contents: ArchiveEntryIndex.Contents) -> ArchiveEntryIndex { seen.index(contents: contents) }

  /// The refusal of an entry that the table of paths has no room for.
  private func full(_ header: EntryHeader) -> PackageError {
    PackageError(
      .unsupported, "cannot read entry", path: header.displayName,
      context: "in '\(archive)': the archive has too many entries or names for docpkg")
  }

  /// Whether the current entry's bytes are those of entry `earlier` (both `size` bytes), read
  /// again from a second handle. Reads the current entry's data: a consumer must not read it again.
  private func sameContents(asEntry earlier: Int, size: Int64) throws -> Bool {
    var current: [UInt8] = []
    current.reserveCapacity(Int(size))
    try reader.readData { chunk, offset in
      if Int(offset) > current.count { current += repeatElement(0, count: Int(offset) - current.count) }
      current += chunk
    }
    let other = try ArchiveReader(
      path: reader.source, format: reader.format, label: reader.path, previousScan: reader.sharedScan)
    for _ in 0..<earlier { guard try other.next() != nil else { return false } }
    guard try other.next() != nil else { return false }
    var previous: [UInt8] = []
    previous.reserveCapacity(Int(size))
    try other.readData { chunk, offset in
      if Int(offset) > previous.count { previous += repeatElement(0, count: Int(offset) - previous.count) }
      previous += chunk
    }
    if current.count < Int(size) { current += repeatElement(0, count: Int(size) - current.count) }
    if previous.count < Int(size) { previous += repeatElement(0, count: Int(size) - previous.count) }
    return current == previous
  }
}
