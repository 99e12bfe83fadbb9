import DocumentPackage

/// One pass over a zip's central directory that judges every entry as ``ArchiveWalk`` would, without
/// reading any data or building a tree: what a lookup of one entry needs to answer exactly as
/// ``ArchivePackage/open(_:unwrappingSingleDirectory:limits:)`` followed by a path lookup would.
///
/// It is deliberately conservative: names go through ``EntryPolicy`` (the walk's own checks), and
/// whatever it cannot be sure of — a name the policy refuses, a name needing CP437 or the Unicode Path
/// field, an encrypted entry or an unknown method, a symbolic link or special file, two entries that
/// share a path (other than a directory described again) or one below a file, a damaged directory —
/// makes ``run(fd:fileSize:archive:_:)`` return `nil`, and the caller takes the full libarchive
/// path, which says exactly what is wrong.
///
/// It works on the names' bytes: each entry's normalized path (its names joined by `/`, without empty
/// names and `.`) goes into a `ZipPathTable`; no `String` is made unless the caller makes one for
/// the entries it wants. Memory: the distinct paths' bytes plus a few dozen bytes per path.
struct ZipDirectoryScan {
  /// What the scan learnt about the archive's top level.
  struct Summary {
    /// The first entry is a file named `mimetype` (ODF, EPUB): its entries stay at the root.
    var isDocument = false
    /// The only top-level name, when every entry is below one directory (that directory is then the root).
    var singleTopDirectory: String?
    /// Whether every entry was made on Unix with its file type in its mode, so that its permissions are
    /// exactly those of its mode (what libarchive reports then).
    var allUnixModes = true
    /// The files and directories (explicit or implied) of the whole archive, and the files' bytes.
    var files = 0
    var directories = 0
    var bytes: Int64 = 0
  }

  /// Every path met, with its kind (directories implied by entries below them included).
  private(set) var paths = ZipPathTable(expected: 0, bytes: 0)

  /// Calls `body` with each entry's header and normalized path (both valid only during the call), in
  /// directory order, then returns the summary; `nil` when the archive needs the full reader (see the
  /// type's description). Afterwards ``paths`` answers what any path is.
  mutating func run(
    fd: CInt, fileSize: Int64, archive: String,
    _ body: (ZipCentralDirectory.Header, UnsafeRawBufferPointer) -> Void
  ) -> Summary? {
    guard let directory = ZipCentralDirectory(fd: fd, fileSize: fileSize), directory.size > 0 else { return nil }
    // The names take what the fixed 46 bytes of each header leave of the directory (at most).
    let count = directory.declaredEntryCount
    let nameBytes = min(Int(directory.size) - 46 * count, 64 << 20)
    paths = ZipPathTable(expected: count + count / 8, bytes: max(0, nameBytes))
    var summary = Summary()
    var top: Range<Int>?  // the first entry's first name, in the arena
    var severalTops = false
    var topIsFile = false
    var unusual = false
    var index = 0
    do {
      try directory.forEachHeader(archive: archive) { header in
        let isDirectory = header.isDirectory
        guard let size = Self.judge(header, isDirectory: isDirectory),
          let (path, firstEnd, parentEnd) = Self.normalize(header.name, into: &paths)
        else {
          unusual = true
          return false
        }
        let first = path.lowerBound..<firstEnd
        if index == 0, !isDirectory, bytesEqual(path, Self.mimetype) { summary.isDocument = true }
        index += 1
        if let top {
          if !severalTops, !rangesEqual(top, first) { severalTops = true }
        } else {
          top = first
        }
        if parentEnd == nil, !isDirectory { topIsFile = true }
        // Its ancestors become implied directories; none may be a file, and only a directory may be
        // described again (certainly harmless; anything else the walk judges).
        switch paths.insertEntry(path, as: isDirectory ? .directory : .file, parentEnd: parentEnd) {
        case .conflict:
          unusual = true
          return false
        case .new:
          if !isDirectory {
            summary.files += 1
            summary.bytes += Int64(clamping: size)
          }
        case .directoryAgain: break
        }
        if header.versionMadeBy >> 8 != 3 || header.externalAttributes >> 28 == 0 { summary.allUnixModes = false }
        body(header, UnsafeRawBufferPointer(rebasing: paths.arena[path]))
        return true
      }
    } catch { return nil }
    guard !unusual else { return nil }
    summary.directories = paths.count - summary.files
    if !severalTops, !topIsFile, !summary.isDocument, let top {
      summary.singleTopDirectory = String(decoding: paths.arena[top], as: UTF8.self)
    }
    return summary
  }

  /// The kind of the path `components` joined by `/` (after `prefix` and a `/`, if given), if the scan met it.
  mutating func kind(of components: [String], below prefix: String?) -> ZipPathTable.Kind? {
    var key = prefix.map { $0 + "/" } ?? ""
    key += components.joined(separator: "/")
    return key.withUTF8 { paths.kind(of: UnsafeRawBufferPointer($0)) }
  }

  private static let mimetype = Array("mimetype".utf8)

  /// Appends the normalized path of `name` to the arena (the policy's names joined by `/`) and returns
  /// its range, where its first name ends and where its parent path ends (its last `/`, `nil` at the
  /// top); `nil` if the policy refuses the name, it has no names, or the arena is full.
  private static func normalize(_ name: UnsafeRawBufferPointer, into paths: inout ZipPathTable) -> (
    Range<Int>, Int, Int?
  )? {
    let start = paths.arenaCount
    var names = 0
    var firstEnd = 0
    var parentEnd: Int?
    var pending: Range<Int>?  // names still to append: contiguous in `name`, so already joined by `/`
    var written = 0  // the normalized path's length so far
    do {
      try EntryPolicy.forEachComponent(of: name, refuse: { code, _ in PackageError(code, "", path: "") }) { range in
        if names > 0 {
          parentEnd = start + written  // where this name's `/` goes
          if names == 1 { firstEnd = start + written }
          written += 1
        }
        written += range.count
        names += 1
        if let run = pending, run.upperBound + 1 == range.lowerBound {
          pending = run.lowerBound..<range.upperBound
          return
        }
        if let run = pending {
          guard paths.append(UnsafeRawBufferPointer(rebasing: name[run])) != nil, paths.append(byte: UInt8(ascii: "/"))
          else { throw PackageError(.invalidName, "", path: "") }
        }
        pending = range
      }
      if let run = pending, paths.append(UnsafeRawBufferPointer(rebasing: name[run])) == nil {
        throw PackageError(.invalidName, "", path: "")
      }
    } catch { return nil }
    guard names > 0 else { return nil }
    return (start..<paths.arenaCount, names == 1 ? paths.arenaCount : firstEnd, parentEnd)
  }

  private func rangesEqual(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
    Self.namesEqual(UnsafeRawBufferPointer(rebasing: paths.arena[a]), UnsafeRawBufferPointer(rebasing: paths.arena[b]))
  }

  private func bytesEqual(_ a: Range<Int>, _ b: [UInt8]) -> Bool {
    b.withUnsafeBytes { Self.namesEqual(UnsafeRawBufferPointer(rebasing: paths.arena[a]), $0) }
  }

  /// Whether two UTF-8 names are equal as the archive's tree compares them (as `String`s): by their
  /// bytes when both are ASCII, else as strings (see `ZipPathTable`).
  static func namesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    if Syscalls.bytesEqual(a, b) { return true }
    if ZipPathTable.isASCII(a), ZipPathTable.isASCII(b) { return false }
    return String(decoding: a, as: UTF8.self) == String(decoding: b, as: UTF8.self)
  }

  /// The entry's data size (``ZipCentralDirectory/dataSize(method:flags:size:compressedSize:)``) if the walk would take it as a plain file or directory with a UTF-8
  /// name the policy then judges; `nil` if the walk might judge it differently (or refuse it).
  private static func judge(_ header: ZipCentralDirectory.Header, isDirectory: Bool) -> UInt64? {
    if header.flags & 1 != 0 { return nil }  // encrypted
    let method = header.method
    guard method == ZipRecords.stored || method == ZipRecords.deflated else { return nil }
    let values = header.resolved()
    if values.unicodePath != nil { return nil }  // a name libarchive replaces
    if values.problem != nil { return nil }  // an entry libarchive refuses
    // The kind: a name ending in `/` is a directory; the Unix mode (if made on Unix) and the MS-DOS
    // directory attribute must agree, and nothing but files and directories is taken here.
    let attributes = header.externalAttributes
    let unixType = header.versionMadeBy >> 8 == 3 ? attributes >> 28 : 0
    guard unixType == 0 || unixType == 0x4 || unixType == 0x8 else { return nil }
    if (unixType == 0x4) != isDirectory && unixType != 0 { return nil }
    if attributes & 0x10 != 0, !isDirectory { return nil }
    if isDirectory, values.size != 0 { return nil }
    // The name: only UTF-8 (or ASCII) names decode here exactly as libarchive's path does.
    let name = header.name
    if name.contains(where: { $0 >= 0x80 }) {
      guard String(validating: name, as: UTF8.self) != nil else { return nil }
    }
    return ZipCentralDirectory.dataSize(
      method: method, flags: header.flags, size: values.size, compressedSize: values.compressedSize)
  }
}
