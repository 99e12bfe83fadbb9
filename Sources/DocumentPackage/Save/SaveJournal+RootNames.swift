import SystemPackage

/// The names in the package's root when its plan was committed: what tells a journal's own package from another
/// directory that a remount gave the same inode number.
///
/// A journal names its package's root by device and inode (``rootName``), which is how recovery at a package's new
/// name finds the journal its save left beside the old one. But where inode numbers do not survive a remount (sshfs
/// numbers them in the order it looks them up), another package made in the folder can get the number the journal
/// names, and recovery there would apply the plan to it, over its own files (outsider attack 4 on issue 35). So the
/// journal also holds the root's names just before the commit (`root-names`, up to ``rootNamesLimit``), and a
/// directory is taken for the journal's package only if its names are what they were then, give or take the
/// root-level entries the plan makes or removes, and only if it was made when the root was, where the file system
/// keeps birth times (ext4 reuses a deleted root's inode number at once: a package unpacked where the half-saved one
/// was deleted got it, with the same names, being another document of the same app). A package renamed after a kill
/// passes both; an unrelated one is left alone (the journal stays stranded: `check` names it). Where there are no
/// birth times (sshfs, exFAT), another document with exactly the same root names still passes: the residual case.
extension SaveJournal {
  /// The file in the journal folder that holds the root's names.
  static let rootNamesName = RawName("root-names")
  /// The most names it holds: a root of more entries is identified by its inode alone, as before.
  static let rootNamesLimit = 4096

  /// Writes the names in the package's root (`packagePath`, open as `rootFD`) into the journal folder, just before the plan is
  /// committed: `birth SECONDS NANOSECONDS` when the root's birth time is known, one name a line, each byte as two
  /// hexadecimal digits, then `count N`. Nothing for a root of more than ``rootNamesLimit`` entries.
  static func recordRootNames(rootFD: CInt, packagePath: FilePath, born: FileTime?, journalPath: FilePath) throws {
    let listed: [(name: RawName, type: EntryType)]?
    do { listed = try Syscalls.entries(ofDirectory: rootFD, atMost: rootNamesLimit) } catch {
      throw PackageError.io(error, "cannot list", path: packagePath.string, context: "while saving")
    }
    guard let listed else { return }
    let birth = born.map { ["birth \($0.seconds) \($0.nanoseconds)"] } ?? []
    let lines = birth + listed.map { HexDigits.encode($0.name.nameBytes) } + ["count \(listed.count)"]
    let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
    try AtomicFile.write(to: journalPath.appending(rootNamesName.string), label: "journal root names") { fd in
      let written = bytes.withUnsafeBytes { buffer in Result { () throws(Errno) in try Syscalls.writeAll(fd, buffer) } }
      do throws(Errno) { try written.get() } catch {
        throw PackageError.io(error, "cannot write", path: journalPath.string, context: "while saving")
      }
    }
  }

  /// Whether the directory `package` in `parentFD` may be the package the journal `journal` (in `parentFD`) was made
  /// for, by its root's names: each name it has now was there at the commit or is one the plan makes at the root,
  /// and each name there at the commit is still there or is one the plan removes; and, where the file system keeps
  /// birth times, it was made when that root was (alone with `birthOnly`). True when the journal holds no names (an
  /// earlier release's, or a root too big to list) or no plan; false when its names do not read.
  static func rootNamesAgree(_ journal: RawName, package: RawName, parentFD: CInt, birthOnly: Bool = false) -> Bool {
    guard let journalFD = try? Syscalls.openDirectory(in: parentFD, journal) else { return false }
    defer { Syscalls.closeFile(journalFD) }
    guard (try? Syscalls.exists(in: journalFD, rootNamesName)) == true else { return true }
    guard let (recorded, born) = readNames(in: journalFD) else { return false }
    if let born, let now = Syscalls.birthTime(in: parentFD, package), now != born { return false }
    if birthOnly { return true }
    let bytes: [UInt8]?
    do { bytes = try planBytes(in: journalFD) } catch { return false }
    guard let bytes else { return true }  // never committed: it changed nothing, and is removed
    guard let plan = decodePlan(bytes)?.steps else { return false }
    guard let packageFD = try? Syscalls.openDirectory(in: parentFD, package),
      let now = try? Syscalls.entries(ofDirectory: packageFD).map(\.name)
    else { return false }
    defer { Syscalls.closeFile(packageFD) }
    var made: Set<RawName> = [], removed: Set<RawName> = []
    for step in plan where step.path.count == 1 {
      switch step {
      case .place, .makeDirectory: made.insert(step.path[0])
      case .removeFile, .removeDirectory: removed.insert(step.path[0])
      case .setAttributes: break
      }
    }
    let current = Set(now)
    return current.allSatisfy { recorded.contains($0) || made.contains($0) }
      && recorded.allSatisfy { current.contains($0) || removed.contains($0) }
  }

  /// The names `root-names` holds, and the root's birth time when it holds one; nil when it does not read whole (its
  /// count is not its number of names).
  private static func readNames(in journalFD: CInt) -> (Set<RawName>, FileTime?)? {
    guard let fd = try? Syscalls.openForReading(in: journalFD, rootNamesName) else { return nil }
    defer { Syscalls.closeFile(fd) }
    guard let size = try? Syscalls.status(of: fd).size, size < 4 << 20,
      let bytes = try? Syscalls.readBytes(fd, at: 0, count: Int(size)), bytes.last == 10
    else { return nil }
    var lines = bytes.dropLast().split(separator: 10, omittingEmptySubsequences: false)[...]
    var born: FileTime?
    if let first = lines.first, first.starts(with: Array("birth ".utf8)) {
      let fields = String(decoding: first, as: UTF8.self).split(separator: " ")
      guard fields.count == 3, let seconds = Int64(fields[1]), let nanoseconds = Int32(fields[2]) else { return nil }
      born = FileTime(seconds: seconds, nanoseconds: nanoseconds)
      lines = lines.dropFirst()
    }
    guard let last = lines.popLast(), String(decoding: last, as: UTF8.self) == "count \(lines.count)" else {
      return nil
    }
    var names: Set<RawName> = []
    for line in lines {
      guard !line.isEmpty, line.count % 2 == 0 else { return nil }
      var name: [UInt8] = []
      var index = line.startIndex
      while index < line.endIndex {
        guard let high = hexValue(line[index]), let low = hexValue(line[index + 1]) else { return nil }
        name.append(high << 4 | low)
        index += 2
      }
      names.insert(RawName(bytes: name[...]))
    }
    return (names, born)
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}
