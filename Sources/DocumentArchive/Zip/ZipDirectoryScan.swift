import DocumentPackage

/// One pass over a zip's central directory that judges every entry as ``ArchiveWalk`` would, without
/// reading any data or building a tree: what a lookup of one entry needs to answer exactly as
/// ``ArchivePackage/open(_:unwrappingSingleDirectory:)`` followed by a path lookup would.
///
/// It is deliberately conservative: names go through ``EntryName`` and ``EntryPolicy`` (the walk's
/// own code), and whatever it cannot be sure of — a name the policy refuses, a name needing CP437 or
/// the Unicode Path field, an encrypted entry or an unknown method, a symbolic link or special file,
/// two entries that share a path (other than a directory described again) or one below a file, a
/// damaged directory — makes ``run(fd:fileSize:archive:_:)`` return `nil`, and the
/// caller takes the full libarchive path, which says exactly what is wrong.
///
/// Memory: one dictionary slot per distinct path (paths of up to 15 bytes are held inline).
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

  private enum Seen { case file, directory }

  /// Calls `body` with each entry and its path components (in directory order), then returns the
  /// summary; `nil` when the archive needs the full reader (see the type's description).
  static func run(
    fd: CInt, fileSize: Int64, archive: String, _ body: (ZipCentralDirectory.Entry, [String]) -> Void
  ) -> Summary? {
    guard let directory = ZipCentralDirectory(fd: fd, fileSize: fileSize), directory.entryCount > 0 else { return nil }
    var seen: [String: Seen] = [:]
    seen.reserveCapacity(directory.entryCount + directory.entryCount / 8)  // no rehashing on the way
    var lastParent: [String]?
    var unusual = false
    var summary = Summary()
    var top: String?
    var severalTops = false
    var topIsFile = false
    var index = 0
    do {
      try directory.forEach(archive: archive) { entry in
        guard let components = judge(entry, archive: archive) else {
          unusual = true
          return false
        }
        let isDirectory = entry.isDirectory
        if index == 0, components == ["mimetype"], !isDirectory { summary.isDocument = true }
        index += 1
        if top == nil { top = components[0] } else if top != components[0] { severalTops = true }
        if components.count == 1, !isDirectory { topIsFile = true }
        // Ancestors: none may be a file; those not seen become implied directories.
        let parent = Array(components.dropLast())
        if parent != lastParent {
          var path = ""
          for component in parent {
            path = path.isEmpty ? component : path + "/" + component
            let key = path
            switch seen[key] {
            case .file?:
              unusual = true
              return false
            case .directory?: break
            case nil: seen[key] = .directory
            }
          }
          lastParent = parent
        }
        let key = components.joined(separator: "/")
        if let previous = seen[key] {
          // Only a directory described again is certainly harmless; anything else the walk judges.
          guard previous == .directory, isDirectory else {
            unusual = true
            return false
          }
        } else {
          seen[key] = isDirectory ? .directory : .file
          if !isDirectory {
            summary.files += 1
            summary.bytes += Int64(clamping: entry.size)
          }
        }
        if entry.versionMadeBy >> 8 != 3 || entry.externalAttributes >> 28 == 0 { summary.allUnixModes = false }
        body(entry, components)
        return true
      }
    } catch { return nil }
    guard !unusual else { return nil }
    summary.directories = seen.count - summary.files
    if !severalTops, !topIsFile, !summary.isDocument { summary.singleTopDirectory = top }
    return summary
  }

  /// The entry's path components as the walk would make them, or `nil` if the walk might judge it
  /// differently from a plain file or directory (or refuse it).
  private static func judge(_ entry: ZipCentralDirectory.Entry, archive: String) -> [String]? {
    if entry.flags & 1 != 0 || entry.hasUnicodePath { return nil }  // encrypted; a name libarchive replaces
    guard entry.method == ZipRecords.stored || entry.method == ZipRecords.deflated else { return nil }
    // The kind: a name ending in `/` is a directory; the Unix mode (if made on Unix) and the MS-DOS
    // directory attribute must agree, and nothing but files and directories is taken here.
    let unixType = entry.versionMadeBy >> 8 == 3 ? entry.externalAttributes >> 28 : 0
    guard unixType == 0 || unixType == 0x4 || unixType == 0x8 else { return nil }
    let isDirectory = entry.isDirectory
    if (unixType == 0x4) != isDirectory && unixType != 0 { return nil }
    if entry.externalAttributes & 0x10 != 0, !isDirectory { return nil }
    if isDirectory, entry.size != 0 { return nil }
    // The name: only UTF-8 (or ASCII) names decode here exactly as libarchive's path does.
    guard String(validating: entry.name, as: UTF8.self) != nil else { return nil }
    let name = EntryName.decodeZip(entry.name)
    let header = EntryHeader(
      name: name, rawName: Array(name.utf8), kind: isDirectory ? .directory : .file, mode: 0o644,
      size: Int64(clamping: entry.size), modificationTime: nil, linkTarget: nil, nameProblem: nil)
    guard let components = try? EntryPolicy.components(of: header, archive: archive) else { return nil }
    return components
  }
}
