import SystemPackage

/// The save protocol for file systems that can neither exchange two names nor link a file twice (FAT
/// and exFAT, as their FUSE drivers give them here), where rebuilding a subtree beside the package
/// would copy every unchanged file, and where renaming a directory is not even safe (fusefat loses
/// the contents of a directory renamed with entries in it). It never renames a directory.
///
/// A save writes its new and changed files into `.NAME.docpkg-journal/` beside the package (one file
/// each, numbered), makes them durable, and then writes the journal's `plan` whole (``AtomicFile``):
/// the steps that turn the package into the new state — remove what is gone, make new directories,
/// rename each staged file over its path, set directory attributes. The plan's rename into place is
/// the commit. The steps are then applied and the journal removed.
///
/// Every step is idempotent and checks what is there first (a file is removed only if a file is
/// there, a staged file renamed only if it is still staged, ...), so a step applied twice, or after
/// a kill half-way through the plan, leaves the same result. ``Recovery`` therefore settles an
/// interrupted save by the plan alone: with a plan, it applies all of it again (the save is
/// completed); without one, it removes the journal (the save never happened). Either way the package
/// is the old state or the new one.
///
/// Readers see the steps one by one: unlike an exchange, the package is not replaced in one atomic
/// step, but each file is (a rename over it), and coordinated readers (``PackageReadLock``) wait
/// until the whole plan is applied.
struct SaveJournal {
  /// One change to the package, at a path relative to its root (empty: the root itself).
  enum Step: Equatable {
    /// Removes the file or symbolic link at the path, if one is there.
    case removeFile([RawName])
    /// Removes the directory at the path and all below it, if a directory is there.
    case removeDirectory([RawName])
    /// Makes a directory at the path (the package's own, for the root), if nothing is there.
    case makeDirectory([RawName])
    /// Renames staged file `number` over the path, if it is still staged.
    case place(Int, [RawName])
    /// Sets a directory's permissions and, if given, its modification time.
    case setAttributes([RawName], permissions: UInt32, time: FileTime?)
  }

  /// The package's names; the journal folder is `names.journal`.
  let names: SiblingNames
  var steps: [Step] = []
  /// What each staged file holds, by its number (``StagedDigest``).
  var staged: [Int: StagedDigest] = [:]

  /// The name of a staged file in the journal folder.
  static func stagedName(_ number: Int) -> RawName { RawName(String(number)) }
  /// The committed plan's name in the journal folder.
  static let planName = RawName("plan")
  /// Where the version keeper notes the id of the version it copies before the plan (``ReplacedStateKeeper``).
  static let copiedVersionName = RawName("version")

  // MARK: Applying

  /// Applies every step, in order, to the package `names.package` in `parentFD`, with the journal
  /// folder open as `journalFD`; then makes every directory it changed durable.
  ///
  /// With `checkingStaged` (recovery), each staged file is first checked against the plan (``checkStaged(journalFD:packagePath:root:planTime:)``).
  /// With `editsAfter` (recovery: when the plan was committed), a file another program changed since (its
  /// modification time is later) is not written over or removed: its edit stays, and the staged file that would have replaced it
  /// is kept in `.NAME.docpkg-unapplied/` beside the package, at its path, where nothing removes it (outsider
  /// attack on issue 35, R2-6: completing a killed save wrote over such an edit, which was then in no version).
  /// - Returns: Each such file: the staged file's place (`setAside`), or the package's path of a file the plan
  ///   removes, left in place.
  /// - Throws: ``PackageError`` naming the path of the step that failed; applying again completes it.
  @discardableResult
  func apply(
    parentFD: CInt, journalFD: CInt, packagePath: FilePath, rootFD givenRoot: CInt? = nil,
    editsAfter planTime: FileTime? = nil, checkingStaged: Bool = false
  ) throws -> [(path: FilePath, setAside: Bool)] {
    var kept: [(path: FilePath, setAside: Bool)] = []
    // By the modification time: the change time also moves when the plan's own removal of another name of the
    // file (a hard link) lowers its link count, which is no edit.
    func changedSincePlan(_ status: FileStatus?) -> Bool {
      guard let planTime, let status else { return false }
      return status.modificationTime > planTime
    }
    var changedDirectories: Set<[RawName]> = []
    // Every step is made below the package's root directory as opened (by the caller before the plan
    // was committed, else here): a package renamed or moved meanwhile is still the one completed.
    var ownRoot: CInt = -1
    defer { if ownRoot >= 0 { Syscalls.closeFile(ownRoot) } }
    func root() throws(Errno) -> CInt {
      if let givenRoot { return givenRoot }
      if ownRoot < 0 { ownRoot = try Syscalls.openDirectory(in: parentFD, names.package) }
      return ownRoot
    }
    if checkingStaged {
      try checkStaged(journalFD: journalFD, packagePath: packagePath, root: root, planTime: planTime)
    }
    for step in steps {
      let path = step.path
      func fail(_ action: String, _ error: Errno) -> PackageError {
        let shown = path.reduce(packagePath) { $0.appending($1.string) }
        return PackageError.io(error, "cannot \(action)", path: shown.string, context: "while saving")
      }
      if case .makeDirectory(let path) = step, path.isEmpty {
        do {
          // The package's root: there already when it was opened before the plan (wherever it is now).
          if givenRoot == nil, try !Syscalls.exists(in: parentFD, names.package) {
            try Syscalls.makeDirectory(in: parentFD, names.package)
          }
        } catch { throw fail("create directory", error) }
        continue
      }
      let containerFD: CInt
      do { containerFD = try Self.openDirectory(path.dropLast(), below: root()) } catch {
        throw fail("open the directory of", error)
      }
      defer { Syscalls.closeFile(containerFD) }
      let name = path.last ?? names.package
      do {
        switch step {
        case .removeFile:
          if let status = try? Syscalls.status(in: containerFD, name), status.kind != .directory {
            if changedSincePlan(status) {
              kept.append((path.reduce(packagePath) { $0.appending($1.string) }, false))
            } else {
              try Syscalls.unlink(in: containerFD, name, directory: false)
            }
          }
        case .removeDirectory:
          if let status = try? Syscalls.status(in: containerFD, name), status.kind == .directory {
            try TreeRemoval.remove(name, in: containerFD, isDirectory: true)
          }
        case .makeDirectory:
          if try !Syscalls.exists(in: containerFD, name) { try Syscalls.makeDirectory(in: containerFD, name) }
        case .place(let number, _):
          let staged = Self.stagedName(number)
          if try Syscalls.exists(in: journalFD, staged) {
            if changedSincePlan(try? Syscalls.status(in: containerFD, name)) {
              kept.append((try setAside(staged, path, journalFD: journalFD, parentFD: parentFD), true))
            } else {
              try Syscalls.rename(from: journalFD, staged, to: containerFD, name)
            }
          }
        case .setAttributes(_, let permissions, let time):
          let fd = try Syscalls.openDirectory(
            in: path.isEmpty ? root() : containerFD, path.isEmpty ? RawName(".") : name)
          defer { Syscalls.closeFile(fd) }
          try Syscalls.setPermissions(fd, FilePermissions(rawValue: CInterop.Mode(permissions)))
          if let time { try Syscalls.setModificationTime(fd, time) }
          try Syscalls.synchronize(fd)
        }
      } catch { throw fail(step.action, error) }
      changedDirectories.insert(Array(path.dropLast()))
    }
    // Longest first: a directory's own entry is synced with its parent after it.
    for directory in changedDirectories.sorted(by: { $0.count > $1.count }) {
      do {
        let fd = try Self.openDirectory(directory[...], below: root())
        defer { Syscalls.closeFile(fd) }
        try Syscalls.synchronize(fd)
      } catch {
        let shown = directory.reduce(packagePath) { $0.appending($1.string) }
        throw PackageError.io(error, "cannot flush directory", path: shown.string, context: "while saving")
      }
    }
    return kept
  }

  /// Moves staged file `staged` to `.NAME.docpkg-unapplied/PATH` beside the package (its folders made as needed),
  /// durably; where it is then.
  private func setAside(_ staged: RawName, _ path: [RawName], journalFD: CInt, parentFD: CInt) throws(Errno) -> FilePath
  {
    let folder = RawName(".\(names.package.string).docpkg-unapplied")
    if try !Syscalls.exists(in: parentFD, folder) { try Syscalls.makeDirectory(in: parentFD, folder) }
    var fd = try Syscalls.openDirectory(in: parentFD, folder)
    defer { Syscalls.closeFile(fd) }
    for component in path.dropLast() {
      if try !Syscalls.exists(in: fd, component) { try Syscalls.makeDirectory(in: fd, component) }
      let next = try Syscalls.openDirectory(in: fd, component)
      Syscalls.closeFile(fd)
      fd = next
    }
    try Syscalls.rename(from: journalFD, staged, to: fd, path.last ?? staged)
    try Syscalls.synchronize(fd)
    try Syscalls.synchronize(parentFD)
    return path.reduce(names.path(folder)) { $0.appending($1.string) }
  }

  /// Opens the package's directory at `path` (relative to the package, in `parentFD`) without
  /// following symbolic links.
  static func openDirectory(_ path: ArraySlice<RawName>, in parentFD: CInt, package: RawName) throws(Errno) -> CInt {
    let root = try Syscalls.openDirectory(in: parentFD, package)
    defer { Syscalls.closeFile(root) }
    return try openDirectory(path, below: root)
  }

  /// Opens the package's directory at `path` (relative to the package) below its root directory,
  /// open as `rootFD` (left open), without following symbolic links.
  static func openDirectory(_ path: ArraySlice<RawName>, below rootFD: CInt) throws(Errno) -> CInt {
    var fd = try Syscalls.openDirectory(in: rootFD, RawName("."))
    for component in path {
      let next: CInt
      do { next = try Syscalls.openDirectory(in: fd, component) } catch {
        Syscalls.closeFile(fd)
        throw error
      }
      Syscalls.closeFile(fd)
      fd = next
    }
    return fd
  }
}

extension SaveJournal.Step {
  var path: [RawName] {
    switch self {
    case .removeFile(let path), .removeDirectory(let path), .makeDirectory(let path), .place(_, let path),
      .setAttributes(let path, _, _):
      path
    }
  }

  /// What the step does, for messages.
  var action: String {
    switch self {
    case .removeFile: "remove"
    case .removeDirectory: "remove directory"
    case .makeDirectory: "create directory"
    case .place: "rename the new file into place:"
    case .setAttributes: "set permissions and time of"
    }
  }
}
