import SystemPackage

/// A journaled save killed while applying its plan, and the package renamed before anything
/// recovered it (a file manager renames at any moment): the journal is still beside the old name,
/// and the package under its new name is part old, part new.
///
/// So a committed journal says whose it is: `root` in the journal folder holds the device and inode
/// of the package's root when the plan was committed (written before the plan). Recovery at the
/// package's new name, finding no journal of its own, looks among its siblings for a journal whose
/// `root` is this package's root while no package of the journal's own name is, takes it under its
/// own name, and completes the save as it would have beside the old name. (A package moved to
/// another folder leaves its journal behind, in the folder it came from: out of reach.) A journal
/// killed before it said whose it was (so before its commit), whose package is gone, is taken the
/// same way, to be removed: it changed nothing. A committed journal of a package not at its name that does not name
/// this root is stranded (``StrandedSave``): `docpkg check` names it rather than calling the package ok.
extension SaveJournal {
  /// The file in the journal folder that names the package's root.
  static let rootName = RawName("root")

  /// Writes `root` into the journal folder before the plan is committed (see the extension's discussion).
  static func recordRoot(_ root: FileStatus, journalPath: FilePath) throws {
    try AtomicFile.write(to: journalPath.appending(rootName.string), label: "journal root") { fd in
      let bytes = RootRecord.bytes(of: root)
      let written = bytes.withUnsafeBytes { buffer in Result { () throws(Errno) in try Syscalls.writeAll(fd, buffer) } }
      do throws(Errno) { try written.get() } catch {
        throw PackageError.io(error, "cannot write", path: journalPath.string, context: "while saving")
      }
    }
  }

  /// A sibling's journal that is this package's, left by a save killed before the package was
  /// renamed, with the package name it was made for; `nil` if there is none. Reads the parent's
  /// listing and each sibling journal's `root` file; changes nothing.
  static func movedJournal(for names: SiblingNames, parentFD: CInt) -> (journal: RawName, owner: RawName)? {
    guard let root = try? Syscalls.status(in: parentFD, names.package),
      root.kind == .directory, let siblings = try? Syscalls.entries(ofDirectory: parentFD)
    else { return nil }
    for (name, type) in siblings where type == .directory || type == .unknown {
      guard name != names.journal, let owner = SiblingNames.owner(of: name, suffix: "journal") else { continue }
      let other = try? Syscalls.status(in: parentFD, owner)
      switch recordedRoot(of: name, parentFD: parentFD) {
      case [root.device, root.inode]:
        // A package of the journal's own name that is this root (a hard-linked or bind-mounted twin) still has it.
        if let other, [other.device, other.inode] == [root.device, root.inode] { continue }
        // Another directory a remount gave the same number (sshfs) is not the package the plan was made for.
        guard rootNamesAgree(name, package: names.package, parentFD: parentFD) else { continue }
      default:
        // Not committed (killed before it said whose it is, or before its plan, naming a root whose inode number a
        // remount has changed since): it never changed anything, and with no package of its name it is nobody's
        // (it may be this package's), so recovery here removes it.
        guard other == nil, hasPlan(name, parentFD: parentFD) == false else { continue }
      }
      return (name, owner)
    }
    return nil
  }

  /// Under the package's lock, before recovery looks for its journal: takes a sibling's journal
  /// that is this package's (``movedJournal(for:parentFD:)``) under the package's own journal name.
  /// Skips it while a save of the old name still runs (it holds that name's lock, and completes the
  /// plan itself).
  /// - Returns: The journal's old path, when one was taken.
  static func adoptMovedJournal(_ names: SiblingNames, parentFD: CInt) -> FilePath? {
    guard (try? Syscalls.exists(in: parentFD, names.journal)) == false,
      let moved = movedJournal(for: names, parentFD: parentFD)
    else { return nil }
    guard let ownerLock = try? PackageLock(forPackageAt: names.parent.appending(moved.owner.string), wait: false)
    else { return nil }
    defer { withExtendedLifetime(ownerLock) {} }
    guard (try? Syscalls.rename(from: parentFD, moved.journal, to: parentFD, names.journal)) != nil else { return nil }
    try? Syscalls.synchronize(parentFD)
    return names.parent.appending(moved.journal.string)
  }

  /// Whose the package's own journal is: a directory of the folder, or one not here.
  enum OwnJournalOwner {
    /// The directory now at the package's name: recovery here applies its plan (or removes it, never committed).
    case thisPackage
    /// Another directory of the folder (the package renamed after its save was killed, and another given its old
    /// name): that one's recovery takes it (``adoptMovedJournal(_:parentFD:)``).
    case sibling
    /// A directory not in the folder (its package moved to another folder or deleted, and this one made or copied
    /// at its name; or nothing is there): left, a stranded save (``strandedJournals(for:parentFD:)``).
    case notHere
  }

  /// Whose the package's own journal is, by the root its `root` names. Another directory of the folder is the
  /// sibling's. Where the root it names is nowhere (a package moved away, or a remount renumbered the package's root
  /// on sshfs), the package is taken for the journal's own when its root's names and birth are those at the commit
  /// (``rootNamesAgree(_:package:parentFD:)``); where the number is the package's, when its birth is (ext4 gives a
  /// deleted root's number to the next directory made). Before, a package moved to another folder had its plan
  /// applied over the files of another made at its name (outsider attack 6 on issue 35, H2). A journal that names no
  /// root (a save that made the package, or an earlier release's), or was never committed, is this package's.
  static func ownJournalOwner(_ names: SiblingNames, parentFD: CInt) -> OwnJournalOwner {
    guard let recorded = recordedRoot(of: names.journal, parentFD: parentFD) else { return .thisPackage }
    let root = try? Syscalls.status(in: parentFD, names.package)
    let sameNumber = root.map { recorded == [$0.device, $0.inode] } == true
    if !sameNumber, namesASibling(recorded, names, parentFD: parentFD) { return .sibling }
    // Never committed, it changed nothing: removed here.
    guard hasPlan(names.journal, parentFD: parentFD) == true else { return .thisPackage }
    guard let root, root.kind == .directory,
      rootNamesAgree(names.journal, package: names.package, parentFD: parentFD, birthOnly: sameNumber)
    else { return .notHere }
    return .thisPackage
  }

  /// Whether `root` (a device and inode) is a directory of the package's folder other than the package.
  private static func namesASibling(_ root: [UInt64], _ names: SiblingNames, parentFD: CInt) -> Bool {
    guard let siblings = try? Syscalls.entries(ofDirectory: parentFD) else { return false }
    for (name, type) in siblings where name != names.package && (type == .directory || type == .unknown) {
      guard !SiblingNames.isSiblingEntry(name.string),
        let status = try? Syscalls.status(in: parentFD, name), status.kind == .directory
      else { continue }
      if [status.device, status.inode] == root { return true }
    }
    return false
  }

  /// The committed journals beside this package whose packages are not at their names (nothing is there, or another
  /// directory than the one the save began in), and that are not this package's by their `root`
  /// (``movedJournal(for:parentFD:)`` takes those): each is a save that changed its package part of the way. It may
  /// be this package's, renamed, on a file system whose inode numbers do not survive a rename (exFAT through FUSE,
  /// sshfs), which nothing in the package can tell; or its package was deleted, or moved to another folder. Reads
  /// the parent's listing and each such journal's folder; changes nothing.
  /// The package's own journal is one of them when its package is not here (``ownJournalOwner(_:parentFD:)``).
  static func strandedJournals(for names: SiblingNames, parentFD: CInt) -> [(journal: RawName, owner: RawName)] {
    var stranded: [(journal: RawName, owner: RawName)] = []
    if ownJournalOwner(names, parentFD: parentFD) == .notHere {  // only a committed journal is another's
      stranded.append((names.journal, names.package))
    }
    guard let root = try? Syscalls.status(in: parentFD, names.package),
      let siblings = try? Syscalls.entries(ofDirectory: parentFD)
    else { return stranded }
    for (name, type) in siblings where type == .directory || type == .unknown {
      guard name != names.journal, let owner = SiblingNames.owner(of: name, suffix: "journal"),
        hasPlan(name, parentFD: parentFD) == true
      else { continue }
      let recorded = recordedRoot(of: name, parentFD: parentFD)
      guard recorded != [root.device, root.inode] else { continue }
      // Its package at its name (the directory the save began in) completes it; anything else there is another.
      if let other = try? Syscalls.status(in: parentFD, owner),
        recorded == nil || recorded == [other.device, other.inode]
      {
        continue
      }
      stranded.append((name, owner))
    }
    return stranded.sorted { $0.journal.nameBytes.lexicographicallyPrecedes($1.journal.nameBytes) }
  }

  /// Whether a journal holds a plan (it was committed); nil when it cannot be looked at.
  static func hasPlan(_ journal: RawName, parentFD: CInt) -> Bool? {
    guard let journalFD = try? Syscalls.openDirectory(in: parentFD, journal) else { return nil }
    defer { Syscalls.closeFile(journalFD) }
    return try? Syscalls.exists(in: journalFD, planName)
  }

  /// The device and inode a journal's `root` file names, `nil` if it has none (an earlier release's journal) or it
  /// does not read.
  static func recordedRoot(of journal: RawName, parentFD: CInt) -> [UInt64]? {
    guard let journalFD = try? Syscalls.openDirectory(in: parentFD, journal) else { return nil }
    defer { Syscalls.closeFile(journalFD) }
    return RootRecord.read(rootName, in: journalFD)
  }
}
