import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the saved form of a node (and everything below it) as a new file or tree, carrying
/// unchanged parts over from disk and writing only what changed:
///
/// - an unchanged file or link (loaded from disk, no `.contents`/`.attributes` edit) is hard-linked
///   from where it was loaded, even if it was moved or renamed in the model (see ``FileCarrier``), when it was
///   loaded from the package being saved; from another package (a save as, a copy) it is copied, a reflink
///   where the file system has them: two packages never share an inode;
/// - a directory never listed is carried over by walking the disk, without loading it into the model;
/// - new and changed files are written, from memory or streamed from their ``FileContentSource``;
/// - permissions and modification times are set as the model has them (new and rewritten files
///   get the time of the save, unless their time was set explicitly).
///
/// Directories are created owner-writable and get their permissions after their children are in.
/// Everything written is made durable through ``DurabilityPlan``.
final class TreeBuilder {
  /// The package being saved, for messages.
  let packagePath: FilePath
  var durability = DurabilityPlan()
  /// The unchanged files carried by a hard link, whose change times the links moved (see ``RelinkedFile``).
  var relinked: [RelinkedFile] = []
  /// Told the status of each entry of the package just before the builder hard-links it into the
  /// new state (``ReplacedStateKeeper/willLink(_:)``).
  var willLink: ((FileStatus) -> Void)?
  /// For a save that builds a new package root: the identity (``PackageIdentity``) the new root
  /// gets, given its status, so that ``PackageReference``s follow the package across saves.
  var rootIdentity: ((FileStatus) -> PackageIdentity)?
  /// For a save that builds a new package root in place of the live one (a restore, a whole save): the live
  /// root. A directory the model holds without an origin in this package (a version's tree) gets the FIFOs,
  /// sockets and devices of the live directory at its path, as one with an origin gets its origin's.
  var replacing: FilePath?
  /// What it carried from disk into the directories the model never listed, by path in the
  /// package: told to ``OwnSaves`` with the placement, so that a monitor can tell it from another
  /// program's change in the same directories (see ``CarriedEntries``).
  private(set) var carried = CarriedEntries()
  /// The directories it built from a listing of a directory of this package (the model's, or its own
  /// when it carried one the model never listed): where an in-place save's ``ReplacedTreeSweep``
  /// looks, after the swap, for entries another program made there after that listing.
  private(set) var listedDirectories: [ListedDirectory] = []

  /// A directory built from a listing of a directory of this package.
  struct ListedDirectory {
    /// Its path in the package as built (the model's path).
    let path: String
    /// The path of the directory it was listed from, relative to the package root.
    let origin: FilePath
    /// The names that listing held, when the builder listed it itself; nil: the model's listing
    /// (the model's nodes loaded from there, including those it removed or moved away since).
    let listed: Set<RawName>?
    /// The model's node, when built from the model's listing.
    let node: PackageNode?
    /// The FIFOs, sockets and devices carried beside the model's entries (which the model does not hold).
    var special: Set<RawName> = []
  }

  init(packagePath: FilePath) { self.packagePath = packagePath }

  /// Builds `node` as `name` in the directory `dirfd`.
  ///
  /// Directories are built with an explicit stack of the open directories on the way down, not by
  /// recursion (a package's depth is its own to choose): each is finished (permissions, time, sync)
  /// once everything below it is in. Only the root and the last levels stay open (``DescriptorWindow``).
  /// - Parameter path: The node's path in the package, for messages.
  /// - Throws: ``PackageError`` naming the entry and the failed action.
  func build(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String) throws {
    guard node.kind == .directory else { return try buildEntry(node, in: dirfd, as: name, path: path) }
    var open: [OpenDirectory] = []
    defer { for directory in open { directory.close() } }
    let live = try replacing.flatMap { root throws(PackageError) in
      try openLive(root.string) { () throws(Errno) in
        try Syscalls.openFile(root, [.readOnly, .directory, .noFollow])
      }
    }
    do { open.append(try startDirectory(node, in: dirfd, as: name, path: path, live: live)) } catch {
      if let live { Syscalls.closeFile(live) }
      throw error
    }
    while !open.isEmpty {
      try Task.checkCancellation()  // a cancelled save stops building (see `Saver`, "Cancellation")
      let top = open.count - 1
      if open[top].fd < 0 { try reopen(&open, through: top) }
      guard let child = open[top].remaining.popLast() else {
        let directory = open.removeLast()
        defer { directory.close() }
        try finishDirectory(directory)
        continue
      }
      let parentPath = open[top].path
      let childPath = parentPath.isEmpty ? child.name : parentPath + "/" + child.name
      if child.kind == .directory {
        var live: CInt?
        if let parentLive = open[top].live, !isFromThisPackage(child.origin) {
          live = try openLive(childPath) { () throws(Errno) in
            try Syscalls.openDirectory(in: parentLive, child.diskName)
          }
        }
        do {
          open.append(try startDirectory(child, in: open[top].fd, as: child.diskName, path: childPath, live: live))
        } catch {
          if let live { Syscalls.closeFile(live) }
          throw error
        }
        if let closing = DescriptorWindow.twoALevel.levelToClose(count: open.count), open[closing].fd >= 0 {
          open[closing].closeDescriptors()
        }
      } else {
        try buildEntry(child, in: open[top].fd, as: child.diskName, path: childPath)
      }
    }
  }

  /// A directory created, whose children are still being built: open, unless the build went deeper than
  /// ``DescriptorWindow/openLevels`` below it.
  private struct OpenDirectory {
    let node: PackageNode
    /// Its descriptor; -1 while closed.
    var fd: CInt
    let path: String
    /// The children not built yet.
    var remaining: [PackageNode]
    /// The modification time to set when it is finished; `nil` for the time of the save.
    let time: FileTime?
    /// The live directory at its path, for a directory without an origin in this package (see ``replacing``).
    var live: CInt?
    /// Whether there was a live directory at its path when it was made (``live`` is nil while it is closed).
    let hadLive: Bool

    init(node: PackageNode, fd: CInt, path: String, remaining: [PackageNode], time: FileTime?, live: CInt?) {
      (self.node, self.fd, self.path, self.remaining, self.time, self.live) = (node, fd, path, remaining, time, live)
      hadLive = live != nil
    }

    /// Closes its descriptors, to be opened again (``TreeBuilder/reopen(_:through:)``).
    mutating func closeDescriptors() {
      close()
      (fd, live) = (-1, nil)
    }

    func close() {
      if fd >= 0 { Syscalls.closeFile(fd) }
      if let live { Syscalls.closeFile(live) }
    }
  }

  /// Opens again the directories of `open` up to `top` that the walk closed on its way down (``DescriptorWindow``).
  private func reopen(_ open: inout [OpenDirectory], through top: Int) throws {
    try DescriptorWindow.twoALevel.reopen(
      through: top, isClosed: { open[$0].fd < 0 },
      open: { index in
        let (parentFD, parentLive) = (open[index - 1].fd, open[index - 1].live)
        let name = open[index].node.diskName
        open[index].fd = try step("open directory", open[index].path) { () throws(Errno) in
          try Syscalls.openDirectory(in: parentFD, name)
        }
        if open[index].hadLive, let parentLive {
          open[index].live = try openLive(open[index].path) { () throws(Errno) in
            try Syscalls.openDirectory(in: parentLive, name)
          }
        }
      }, close: { open[$0].closeDescriptors() })
  }

  /// Whether `node` was loaded from this package (its origin is here): its FIFOs, sockets and devices are
  /// carried from there.
  /// Whether `origin` is in the package being saved (its files may be hard-linked, its FIFOs carried).
  private func isFromThisPackage(_ origin: DiskOrigin?) -> Bool {
    origin?.location.root == packagePath
  }

  /// Opens a live directory (see ``replacing``); nil when there is none at that path.
  private func openLive(_ path: String, _ open: () throws(Errno) -> CInt) throws(PackageError) -> CInt? {
    do { return try open() } catch {
      if error == .noSuchFileOrDirectory || error == .notDirectory { return nil }
      throw failure("open directory", path, error)
    }
  }

  private func buildEntry(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String) throws {
    switch node.kind {
    case .directory: try build(node, in: dirfd, as: name, path: path)
    case .file: try buildFile(node, in: dirfd, as: name, path: path)
    case .symlink: try buildLink(node, in: dirfd, as: name, path: path)
    }
  }

  /// Creates and opens the directory `node` as `name` in `dirfd`; a directory never listed has its
  /// contents carried over from disk here.
  private func startDirectory(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String, live: CInt?)
    throws -> OpenDirectory
  {
    try step("create directory", path) { () throws(Errno) in try Syscalls.makeDirectory(in: dirfd, name) }
    let fd = try step("open directory", path) { () throws(Errno) in try Syscalls.openDirectory(in: dirfd, name) }
    do {
      if path.isEmpty, let rootIdentity {
        try step("keep the package's identity on", path) { () throws(Errno) in
          try rootIdentity(try Syscalls.status(of: fd)).write(fd)
        }
      }
      var time = node.modificationTime
      var remaining: [PackageNode] = []
      // Children probed by a path walk are the model's: the directory is listed to hold them and the rest.
      if node.loadedChildren == nil, node.probedChildren != nil || node.probedRemovals != nil {
        _ = try node.children()
      }
      if let children = node.loadedChildren {
        remaining = Array(children.values)
        if node.edits.contains(.membership) && !node.edits.contains(.attributes) { time = nil }
        let names = Set(children.values.map(\.diskName))
        if let origin = node.origin, isFromThisPackage(origin) {
          let special = try carrySpecialEntries(of: origin, except: names, into: fd, path: path)
          listedDirectories.append(
            ListedDirectory(path: path, origin: origin.relativePath, listed: nil, node: node, special: special))
        } else if let live {
          try carrySpecialEntries(from: live, except: names, into: fd, path: path)
        }
      } else if let origin = node.origin {
        // Never listed: carry the directory's contents straight from disk.
        let source = origin.absolutePath
        let sourceFD: CInt
        do { sourceFD = try Syscalls.openFile(source, [.readOnly, .directory, .noFollow]) } catch {
          throw node.onDiskError(error, path: source, action: "open directory")
        }
        defer { Syscalls.closeFile(sourceFD) }
        carried.recordDirectory(path)
        let fromHere = isFromThisPackage(origin)
        try carryContents(
          of: sourceFD, at: source, into: fd, path: path, origin: fromHere ? origin.relativePath : nil,
          fromThisPackage: fromHere)
        if !node.edits.contains(.attributes) {
          time = try step("read status of", path) { () throws(Errno) in
            try Syscalls.status(of: sourceFD).modificationTime
          }
        }
      }
      return OpenDirectory(node: node, fd: fd, path: path, remaining: remaining, time: time, live: live)
    } catch {
      Syscalls.closeFile(fd)
      throw error
    }
  }

  /// Sets a built directory's permissions and time, and makes it durable.
  private func finishDirectory(_ directory: OpenDirectory) throws {
    let (fd, path) = (directory.fd, directory.path)
    try step("set permissions of", path) { () throws(Errno) in
      try Syscalls.setPermissions(fd, directory.node.permissions)
    }
    if let time = directory.time {
      try step("set modification time of", path) { () throws(Errno) in try Syscalls.setModificationTime(fd, time) }
    }
    try step("flush", path) { () throws(Errno) in try durability.finished(fd) }
  }

  private func buildFile(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String) throws {
    // Keep the time of a file whose contents did not change, or whose time was set explicitly.
    let time = node.edits.contains(.contents) && !node.edits.contains(.attributes) ? nil : node.modificationTime
    if case .onDisk = node.fileBody, let origin = node.origin {
      let attributes = node.edits.isDisjoint(with: [.contents, .attributes]) ? nil : (node.permissions, time)
      try carry(origin, of: node, to: dirfd, as: name, attributes: attributes, path: path)
      return
    }
    if case .source(let source as DiskFileSource) = node.fileBody, source.handedOver,
      (try? Syscalls.link(from: currentDirectory, RawName(path: source.path), to: dirfd, name)) != nil
    {
      // A handed-over file becomes the package's own: no bytes copied; durable like a written one.
      let fd = try step("open", path) { () throws(Errno) in try Syscalls.openForReading(in: dirfd, name) }
      defer { Syscalls.closeFile(fd) }
      try finishFile(fd, node, time: time, path: path)
      return
    }
    let fd = try step("create", path) { () throws(Errno) in try Syscalls.createFile(in: dirfd, name) }
    defer { Syscalls.closeFile(fd) }
    switch node.fileBody {
    case .data(let data):
      let result = data.withUnsafeBytes { bytes in Result { () throws(Errno) in try Syscalls.writeAll(fd, bytes) } }
      try step("write", path) { () throws(Errno) in try result.get() }
    case .source(let source as any FileCopySource):
      let input = try source.openForCopying()
      defer { Syscalls.closeFile(input) }
      try step("\(source.copyDescription) to", path) { () throws(Errno) in
        try FileCarrier.copyContents(from: input, to: fd)
      }
    case .source(let source):
      try source.read(chunkSize: 1 << 20) { chunk in
        try self.step("write", path) { () throws(Errno) in try Syscalls.writeAll(fd, chunk) }
      }
    case .onDisk:
      throw PackageError(.invalidArgument, "file has no contents to save:", path: path)
    }
    try finishFile(fd, node, time: time, path: path)
  }

  /// Sets a written file's permissions and time, and makes it durable.
  private func finishFile(_ fd: CInt, _ node: PackageNode, time: FileTime?, path: String) throws {
    try step("set permissions of", path) { () throws(Errno) in try Syscalls.setPermissions(fd, node.permissions) }
    if let time {
      try step("set modification time of", path) { () throws(Errno) in try Syscalls.setModificationTime(fd, time) }
    }
    try step("flush", path) { () throws(Errno) in try durability.finished(fd) }
  }

  private func buildLink(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String) throws {
    if let origin = node.origin, node.edits.isEmpty {
      try carry(origin, of: node, to: dirfd, as: name, attributes: nil, path: path)
      return
    }
    try step("create symbolic link", path) { () throws(Errno) in
      try Syscalls.makeSymbolicLink(in: dirfd, name, destination: node.linkDestination)
    }
    if node.edits.contains(.attributes), let time = node.modificationTime {
      try step("set modification time of", path) { () throws(Errno) in
        try Syscalls.setModificationTime(in: dirfd, name, time)
      }
    }
  }

  private func carry(
    _ origin: DiskOrigin, of node: PackageNode, to dirfd: CInt, as name: RawName,
    attributes: (FilePermissions, FileTime?)?, path: String
  ) throws {
    let source = origin.absolutePath
    do {
      _ = try Syscalls.resolving(source) { sourceDirectory, sourceName throws(Errno) in
        try FileCarrier.carry(
          RawName(cString: sourceName), from: sourceDirectory, to: dirfd, as: name, attributes: attributes,
          linking: isFromThisPackage(origin), durability: &durability, relinked: &relinked,
          announce: willLink)
      }
    } catch {
      if error == .noSuchFileOrDirectory { throw node.onDiskError(error, path: source, action: "carry over") }
      throw failure("carry over", path, error)
    }
  }

  /// Carries the FIFOs, sockets and devices of the directory `origin` (of this package) whose names are not in
  /// `names` (the model's entries there) into `fd`: the model does not hold such entries, and a save must not
  /// delete an entry it does not represent. Versions do not keep them (as `pack` does not).
  /// - Returns: The names carried.
  @discardableResult
  private func carrySpecialEntries(of origin: DiskOrigin, except names: Set<RawName>, into fd: CInt, path: String)
    throws -> Set<RawName>
  {
    let source = origin.absolutePath
    let sourceFD: CInt
    do { sourceFD = try Syscalls.openFile(source, [.readOnly, .directory, .noFollow]) } catch {
      if error == .noSuchFileOrDirectory || error == .notDirectory { return [] }  // gone: nothing of it to keep
      throw PackageError.io(error, "cannot open directory", path: source.string, context: "while saving")
    }
    defer { Syscalls.closeFile(sourceFD) }
    return try carrySpecialEntries(from: sourceFD, except: names, into: fd, path: path)
  }

  /// Carries the FIFOs, sockets and devices of the open directory `source` whose names are not in `names`
  /// into `fd`.
  @discardableResult
  private func carrySpecialEntries(from sourceFD: CInt, except names: Set<RawName>, into fd: CInt, path: String)
    throws -> Set<RawName>
  {
    let entries = try step("list directory", path) { () throws(Errno) in try Syscalls.entries(ofDirectory: sourceFD) }
    var carried: Set<RawName> = []
    for entry in entries where !names.contains(entry.name) {
      let entryPath = path.isEmpty ? entry.name.string : path + "/" + entry.name.string
      guard try isSpecial(entry, in: sourceFD, path: entryPath) else { continue }
      try step("carry over", entryPath) { () throws(Errno) in
        try FileCarrier.carrySpecial(entry.name, from: sourceFD, to: fd)
      }
      carried.insert(entry.name)
    }
    return carried
  }

  /// Whether a directory entry is of a kind the model does not hold (a FIFO, a socket, a device).
  private func isSpecial(_ entry: (name: RawName, type: EntryType), in fd: CInt, path: String) throws -> Bool {
    switch entry.type {
    case .other: return true
    case .file, .directory, .symlink: return false
    case .unknown:
      do { return try Syscalls.status(in: fd, entry.name).kind == nil } catch {
        if error == .noSuchFileOrDirectory { return false }  // gone meanwhile
        throw failure("read status of", path, error)
      }
    }
  }

  /// Carries every entry of the directory `source` into `destination`, and everything below, from
  /// disk: with an explicit stack of the directories open on the way down, not recursion. From this
  /// package (`fromThisPackage`), files are hard-linked where the file system allows and FIFOs, sockets
  /// and devices carried; from another, files are copied and those left out. Each directory
  /// listed is noted in ``listedDirectories`` when `origin` (the source's path in this package) is given.
  /// What cannot be read from the source (`sourcePath`: gone, as when another program removes the package
  /// meanwhile) is named there, not at the entry being made.
  private func carryContents(
    of source: CInt, at sourcePath: FilePath, into destination: CInt, path: String, origin: FilePath?,
    fromThisPackage: Bool
  ) throws {
    /// A directory being carried: its entries not carried yet, and the status to give the copy
    /// when they are in (`nil` for the top, whose caller finishes it and owns its descriptors).
    struct Carrying {
      /// The source and the copy, open; -1 both while closed (``DescriptorWindow``).
      var from: CInt
      var to: CInt
      /// Its name in the directory above (nil for the top).
      let name: RawName?
      let path: String
      /// Where the source is.
      let sourcePath: FilePath
      /// The source's path in this package (nil: not from this package).
      let origin: FilePath?
      var entries: [(name: RawName, type: EntryType)]
      let status: FileStatus?
    }
    func list(_ fd: CInt, _ path: String, at sourcePath: FilePath, _ origin: FilePath?) throws -> [(
      name: RawName, type: EntryType
    )] {
      let entries = try step("list directory", at: sourcePath) { () throws(Errno) in
        try Syscalls.entries(ofDirectory: fd)
      }
      if let origin {
        listedDirectories.append(
          ListedDirectory(path: path, origin: origin, listed: Set(entries.map(\.name)), node: nil))
      }
      return entries.reversed()
    }
    var stack = [
      Carrying(
        from: source, to: destination, name: nil, path: path, sourcePath: sourcePath, origin: origin,
        entries: try list(source, path, at: sourcePath, origin), status: nil)
    ]
    defer {
      for frame in stack where frame.status != nil && frame.from >= 0 {
        Syscalls.closeFile(frame.from)
        Syscalls.closeFile(frame.to)
      }
    }
    func close(_ level: Int) {
      Syscalls.closeFile(stack[level].from)
      Syscalls.closeFile(stack[level].to)
      (stack[level].from, stack[level].to) = (-1, -1)
    }
    while !stack.isEmpty {
      let top = stack.count - 1
      if stack[top].from < 0 {
        // Closed on the way down (``DescriptorWindow``): opened again, source and copy, from the top.
        try DescriptorWindow.twoALevel.reopen(
          through: top, isClosed: { stack[$0].from < 0 },
          open: { level in
            let (above, name) = (stack[level - 1], stack[level].name!)
            let from = try step("open directory", at: stack[level].sourcePath) { () throws(Errno) in
              try Syscalls.openDirectory(in: above.from, name)
            }
            do {
              stack[level].to = try step("open directory", stack[level].path) { () throws(Errno) in
                try Syscalls.openDirectory(in: above.to, name)
              }
            } catch {
              Syscalls.closeFile(from)
              throw error
            }
            stack[level].from = from
          }, close: close)
      }
      let (source, destination) = (stack[top].from, stack[top].to)
      guard let entry = stack[top].entries.popLast() else {
        let frame = stack.removeLast()
        guard let status = frame.status else { continue }
        defer {
          Syscalls.closeFile(frame.from)
          Syscalls.closeFile(frame.to)
        }
        try step("set attributes of", frame.path) { () throws(Errno) in
          try Syscalls.setPermissions(frame.to, status.permissions)
          try Syscalls.setModificationTime(frame.to, status.modificationTime)
          try durability.finished(frame.to)
        }
        continue
      }
      let parentPath = stack[top].path
      let entryPath = parentPath.isEmpty ? entry.name.string : parentPath + "/" + entry.name.string
      let entrySource = stack[top].sourcePath.appending(raw: entry.name)
      var type = entry.type
      if type == .unknown {
        let kind = try step("read status of", at: entrySource) { () throws(Errno) in
          try Syscalls.status(in: source, entry.name).kind
        }
        type =
          switch kind {
          case .file: .file
          case .directory: .directory
          case .symlink: .symlink
          case nil: .other
          }
      }
      switch type {
      case .file, .symlink:
        do {
          try step("carry over", entryPath) { () throws(Errno) in
            let linked = try FileCarrier.carry(
              entry.name, from: source, to: destination, as: entry.name, linking: fromThisPackage,
              durability: &durability, relinked: &relinked, announce: willLink)
            let inode: UInt64
            if let linked {
              inode = linked.inode
            } else {
              inode = try Syscalls.status(in: destination, entry.name).inode
            }
            carried.record(entry.name.string, inode: inode, in: parentPath)
          }
        } catch let error as PackageError where error.errno == .noSuchFileOrDirectory {
          throw failure("carry over", at: entrySource, .noSuchFileOrDirectory)  // gone since its folder was listed
        }
      case .directory:
        let name = entry.name
        let status = try step("read status of", at: entrySource) { () throws(Errno) in
          try Syscalls.status(in: source, name)
        }
        try step("create directory", entryPath) { () throws(Errno) in try Syscalls.makeDirectory(in: destination, name)
        }
        let from = try step("open directory", at: entrySource) { () throws(Errno) in
          try Syscalls.openDirectory(in: source, name)
        }
        let to: CInt
        let entries: [(name: RawName, type: EntryType)]
        let origin = stack[top].origin.map { $0.appending(raw: name) }
        do {
          to = try step("open directory", entryPath) { () throws(Errno) in
            try Syscalls.openDirectory(in: destination, name)
          }
          do {
            entries = try list(from, entryPath, at: entrySource, origin)
            let inode = try step("read status of", entryPath) { () throws(Errno) in try Syscalls.status(of: to).inode }
            carried.record(name.string, inode: inode, in: parentPath)
            carried.recordDirectory(entryPath)
          } catch {
            Syscalls.closeFile(to)
            throw error
          }
        } catch {
          Syscalls.closeFile(from)
          throw error
        }
        stack.append(
          Carrying(
            from: from, to: to, name: name, path: entryPath, sourcePath: entrySource, origin: origin,
            entries: entries, status: status))
        if let closing = DescriptorWindow.twoALevel.levelToClose(count: stack.count), stack[closing].from >= 0 {
          close(closing)
        }
      case .other, .unknown:
        // FIFOs, sockets, devices: not in the model, but the package's own stay where they are.
        guard fromThisPackage else { continue }
        try step("carry over", entryPath) { () throws(Errno) in
          try FileCarrier.carrySpecial(entry.name, from: source, to: destination)
          carried.record(
            entry.name.string, inode: try Syscalls.status(in: destination, entry.name).inode, in: parentPath)
        }
      }
    }
  }

  /// Runs one system call for the entry at `path` in the package being built, turning its `Errno` into a
  /// ``PackageError``.
  @discardableResult
  func step<T>(_ action: String, _ path: String, _ body: () throws(Errno) -> T) throws -> T {
    do { return try body() } catch { throw failure(action, path, error) }
  }

  /// Runs one system call on what is at `location` (the package being built, or a source it carries from),
  /// the location made only for the error (a path thousands of folders deep costs its length to make).
  func step<T>(_ action: String, at location: @autoclosure () -> FilePath, _ body: () throws(Errno) -> T) throws
    -> T
  {
    do { return try body() } catch { throw failure(action, at: location(), error) }
  }

  func failure(_ action: String, _ path: String, _ error: Errno) -> PackageError {
    failure(action, at: path.isEmpty ? packagePath : packagePath.appending(path), error)
  }

  func failure(_ action: String, at location: FilePath, _ error: Errno) -> PackageError {
    PackageError.io(error, "cannot \(action)", path: location.string, context: "while saving")
  }
}

extension PackageNode {
  /// The name to create on disk: the exact bytes it was loaded under (names need not be UTF-8),
  /// unless the node was renamed since; else the bytes its name stands for (``RawName/init(text:)``:
  /// a node read from a version carries a name that is not UTF-8 that way).
  var diskName: RawName {
    // The origin's own name, not the last component of its relative path: that path is made anew (and checked
    // whole) at each call, which made a save 1,000 folders deep take minutes.
    if let last = origin?.name, last.string == name { return RawName(last) }
    return RawName(text: name)
  }

  /// The node's path below the root as the version store names it: each ``diskName``'s
  /// ``RawName/text`` (``path`` repairs a name that is not UTF-8).
  var diskPath: String {
    var names: [String] = []
    var node = self
    while let parent = node.parent {
      names.append(node.diskName.text)
      node = parent
    }
    return names.reversed().joined(separator: "/")
  }
}
