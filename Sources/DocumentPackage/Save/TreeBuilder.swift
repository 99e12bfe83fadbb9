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
///   from where it was loaded, even if it was moved or renamed in the model (see ``FileCarrier``);
/// - a directory never listed is carried over by walking the disk, without loading it into the model;
/// - new and changed files are written, from memory or streamed from their ``FileContentSource``;
/// - permissions and modification times are set as the model has them (new and rewritten files
///   get the time of the save, unless their time was set explicitly).
///
/// Directories are created owner-writable and get their permissions after their children are in.
/// Everything written is made durable through ``SyncPlan``.
final class TreeBuilder {
  /// The package being saved, for messages.
  let packagePath: FilePath
  var sync = SyncPlan()
  /// For a save that builds a new package root: the identity (``PackageIdentity``) the new root
  /// gets, given its status, so that ``PackageReference``s follow the package across saves.
  var rootIdentity: ((FileStatus) -> PackageIdentity)?

  init(packagePath: FilePath) { self.packagePath = packagePath }

  /// Builds `node` as `name` in the directory `dirfd`.
  /// - Parameter path: The node's path in the package, for messages.
  /// - Throws: ``PackageError`` naming the entry and the failed action.
  func build(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String) throws {
    switch node.kind {
    case .directory: try buildDirectory(node, in: dirfd, as: name, path: path)
    case .file: try buildFile(node, in: dirfd, as: name, path: path)
    case .symlink: try buildLink(node, in: dirfd, as: name, path: path)
    }
  }

  private func buildDirectory(_ node: PackageNode, in dirfd: CInt, as name: RawName, path: String) throws {
    try step("create directory", path) { () throws(Errno) in try Syscalls.makeDirectory(in: dirfd, name) }
    let fd = try step("open directory", path) { () throws(Errno) in try Syscalls.openDirectory(in: dirfd, name) }
    defer { Syscalls.closeFile(fd) }
    if path.isEmpty, let rootIdentity {
      try step("keep the package's identity on", path) { () throws(Errno) in
        try rootIdentity(try Syscalls.status(of: fd)).write(fd)
      }
    }
    var time = node.modificationTime
    if let children = node.loadedChildren {
      for child in children.values {
        try build(child, in: fd, as: child.diskName, path: path.isEmpty ? child.name : path + "/" + child.name)
      }
      if node.edits.contains(.membership) && !node.edits.contains(.attributes) { time = nil }
    } else if let origin = node.origin {
      // Never listed: carry the directory's contents straight from disk.
      let source = origin.absolutePath
      let sourceFD: CInt
      do { sourceFD = try Syscalls.openFile(source, [.readOnly, .directory, .noFollow]) } catch {
        throw node.onDiskError(error, path: source, action: "open directory")
      }
      defer { Syscalls.closeFile(sourceFD) }
      try carryContents(of: sourceFD, into: fd, path: path)
      if !node.edits.contains(.attributes) {
        time = try step("read status of", path) { () throws(Errno) in try Syscalls.status(of: sourceFD).modificationTime
        }
      }
    }
    try step("set permissions of", path) { () throws(Errno) in try Syscalls.setPermissions(fd, node.permissions) }
    if let time {
      try step("set modification time of", path) { () throws(Errno) in try Syscalls.setModificationTime(fd, time) }
    }
    try step("sync", path) { () throws(Errno) in try sync.finished(fd) }
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
    case .source(let blob as VersionBlob):
      // Restoring a version: a clone or copy of the blob, checked first; never a link (a write
      // in place to the restored file would change the version).
      let input = try blob.openVerified()
      defer { Syscalls.closeFile(input) }
      try step("copy version blob to", path) { () throws(Errno) in try FileCarrier.copyContents(from: input, to: fd) }
    case .source(let source as DiskFileSource):
      let input = try source.open()
      defer { Syscalls.closeFile(input) }
      try step("copy \(source.path) to", path) { () throws(Errno) in try FileCarrier.copyContents(from: input, to: fd) }
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
    try step("sync", path) { () throws(Errno) in try sync.finished(fd) }
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
      try FileCarrier.carry(
        RawName(path: source), from: currentDirectory, to: dirfd, as: name, attributes: attributes, sync: &sync)
    } catch {
      if error == .noSuchFileOrDirectory { throw node.onDiskError(error, path: source, action: "carry over") }
      throw failure("carry over", path, error)
    }
  }

  /// Carries every entry of the directory `source` into `destination`, recursively, from disk.
  private func carryContents(of source: CInt, into destination: CInt, path: String) throws {
    let entries = try step("list directory", path) { () throws(Errno) in try Syscalls.entries(ofDirectory: source) }
    for entry in entries {
      let entryPath = path.isEmpty ? entry.name.string : path + "/" + entry.name.string
      var type = entry.type
      if type == .unknown {
        let kind = try step("read status of", entryPath) { () throws(Errno) in
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
        try step("carry over", entryPath) { () throws(Errno) in
          try FileCarrier.carry(entry.name, from: source, to: destination, as: entry.name, sync: &sync)
        }
      case .directory:
        let name = entry.name
        let status = try step("read status of", entryPath) { () throws(Errno) in try Syscalls.status(in: source, name) }
        try step("create directory", entryPath) { () throws(Errno) in try Syscalls.makeDirectory(in: destination, name)
        }
        let from = try step("open directory", entryPath) { () throws(Errno) in
          try Syscalls.openDirectory(in: source, name)
        }
        defer { Syscalls.closeFile(from) }
        let to = try step("open directory", entryPath) { () throws(Errno) in
          try Syscalls.openDirectory(in: destination, name)
        }
        defer { Syscalls.closeFile(to) }
        try carryContents(of: from, into: to, path: entryPath)
        try step("set attributes of", entryPath) { () throws(Errno) in
          try Syscalls.setPermissions(to, status.permissions)
          try Syscalls.setModificationTime(to, status.modificationTime)
          try sync.finished(to)
        }
      case .other, .unknown:
        continue  // FIFOs, sockets, devices: not part of a package
      }
    }
  }

  /// Runs one system call for the entry at `path`, turning its `Errno` into a ``PackageError``.
  @discardableResult
  func step<T>(_ action: String, _ path: String, _ body: () throws(Errno) -> T) throws -> T {
    do { return try body() } catch { throw failure(action, path, error) }
  }

  func failure(_ action: String, _ path: String, _ error: Errno) -> PackageError {
    let full = path.isEmpty ? packagePath : packagePath.appending(path)
    return PackageError.io(error, "cannot \(action)", path: full.string, context: "while saving")
  }
}

extension PackageNode {
  /// The name to create on disk: the exact bytes it was loaded under (names need not be UTF-8),
  /// unless the node was renamed since.
  var diskName: RawName {
    if let last = origin?.relativePath.lastComponent, last.string == name { return RawName(last) }
    return RawName(name)
  }
}
