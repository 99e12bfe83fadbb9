import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageNode {
  /// A regular file's contents: `FileWrapper.regularFileContents`.
  ///
  /// Read from disk on first access and kept; files of ``mappingThreshold`` bytes or more are
  /// memory-mapped rather than copied, unless `options` has ``ReadingOptions/withoutMapping``.
  /// A mapped file that another program truncates while mapped can crash the reader (`SIGBUS`):
  /// use ``readContents(chunkSize:_:)`` for files that others may rewrite in place.
  /// - Throws: ``PackageError`` with code `notARegularFile` for other kinds, `changedOnDisk` if the
  ///   file vanished or became something else since it was listed, `io` if it cannot be read.
  public func contents(options: ReadingOptions = []) throws -> Data {
    try requireKind(.file)
    switch fileBody {
    case .data(let data): return data
    case .source(let source):
      guard let file = source as? DiskFileSource, file.isPackageFile else { return try source.readAll() }
      // The package's file, taken unread by a copy of the model: kept once read, as below.
      if let cachedContents { return cachedContents }
      let data = try file.readAll()
      cachedContents = data
      return data
    case .onDisk:
      if let cachedContents { return cachedContents }
      let data = try readFromDisk(mapping: !options.contains(.withoutMapping))
      cachedContents = data
      return data
    }
  }

  /// Replaces a regular file's contents. The node counts as changed until saved.
  ///
  /// Undo name: "Typing"; consecutive edits to the same file within ``UndoStack/coalescingInterval``
  /// are one undo step, which keeps the previous `Data` (sharing its storage), not a copy.
  /// - Throws: ``PackageError`` with code `notARegularFile` for other kinds.
  public func setContents(_ contents: Data) throws {
    try setBody(.data(contents))
  }

  /// Replaces a regular file's body, as one mutator (see ``setContents(_:)``).
  func setBody(_ body: FileBody) throws {
    try mutate("Typing", at: displayPath) { changes in
      try requireKind(.file)
      changes.touch(self)
      replaceContents(body)
      changes.coalescingKey = ContentsKey(node: ObjectIdentifier(self))
    }
  }

  /// Sets a regular file's body and marks its contents changed. A primitive: records nothing.
  func replaceContents(_ body: FileBody) {
    fileBody = body
    cachedContents = nil
    edits.insert(.contents)
  }

  /// Streams a regular file's contents in order, in chunks of at most `chunkSize` bytes, with
  /// memory bounded by `chunkSize` whatever the file's size. Nothing is kept after the call.
  /// - Parameters:
  ///   - chunkSize: The most bytes handed to `body` at once; 1 MiB by default.
  ///   - body: Called with each chunk; the buffer is valid only during the call.
  /// - Throws: As ``contents(options:)``, or what `body` throws.
  public func readContents(chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    precondition(chunkSize > 0, "chunkSize must be positive")
    try requireKind(.file)
    switch fileBody {
    case .data(let data):
      try data.withUnsafeBytes { bytes in
        var offset = 0
        repeat {
          let end = min(offset + chunkSize, bytes.count)
          try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
          offset = end
        } while offset < bytes.count
      }
    case .source(let source):
      try source.read(chunkSize: chunkSize, body)
    case .onDisk:
      if let cachedContents {
        return try PackageNode(regularFileWithContents: cachedContents).readContents(chunkSize: chunkSize, body)
      }
      let fd = try openOnDisk()
      defer { Syscalls.closeFile(fd) }
      try Syscalls.readChunks(fd, path: origin!.absolutePath, chunkSize: chunkSize, body)
    }
  }

  /// Streams a regular file's data in order, as ``readContents(chunkSize:_:)`` does, with each chunk's offset, and
  /// without a sparse file's holes: the bytes not handed over are zeros (a file on disk's `SEEK_HOLE` ranges, a
  /// sparse tar entry's holes; other files are handed over whole).
  /// - Throws: As ``readContents(chunkSize:_:)``.
  /// - Complexity: O(the bytes of data), not O(``size``), for a sparse file.
  package func readData(chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
    precondition(chunkSize > 0, "chunkSize must be positive")
    try requireKind(.file)
    if case .source(let source) = fileBody {
      return try source.readData(chunkSize: chunkSize, body)
    }
    guard case .onDisk = fileBody, cachedContents == nil else {
      var offset: Int64 = 0
      return try readContents(chunkSize: chunkSize) { chunk in
        try body(chunk, offset)
        offset += Int64(chunk.count)
      }
    }
    let fd = try openOnDisk()
    defer { Syscalls.closeFile(fd) }
    let path = origin!.absolutePath.string
    let size = try Syscalls.io("cannot read", path: path) { () throws(Errno) in try Syscalls.status(of: fd).size }
    let ranges = try Syscalls.io("cannot read", path: path) { () throws(Errno) in
      try Syscalls.dataRanges(fd, size: size)
    }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: Syscalls.readBufferAlignment)
    defer { buffer.deallocate() }
    do {
      _ = try Syscalls.readSparse(fd, size: size, dataRanges: ranges, buffer: buffer) { chunk, offset, isHole in
        if !isHole { try body(chunk, offset) }
      }
    } catch let error as Errno {
      throw PackageError.io(error, "cannot read", path: path)
    }
  }

  /// Opens the file that holds a regular file's contents on disk, for reading, and hands the
  /// descriptor to the caller, who must close it. Something `FileWrapper` cannot do.
  /// - Throws: ``PackageError`` with code `invalidArgument` when the contents exist only in memory
  ///   (new or changed and not yet saved), or as ``contents(options:)``.
  public func openForReading() throws -> FileDescriptor {
    try requireKind(.file)
    guard case .onDisk = fileBody, origin != nil else {
      throw PackageError(.invalidArgument, "contents exist only in memory, not on disk:", path: path)
    }
    return FileDescriptor(rawValue: try openOnDisk())
  }

  /// Opens the file at the node's origin, following no link below the package's root
  /// (``DiskOrigin/open(_:)``), checks it is still a regular file, and records its current status.
  private func openOnDisk() throws -> CInt {
    let path = origin!.absolutePath
    let fd: CInt
    do {
      fd = try origin!.open([.readOnly, .nonBlocking])
    } catch {
      throw onDiskError(error, path: path, action: "open")
    }
    do {
      let status = try Syscalls.status(of: fd)
      guard status.kind == .file else {
        Syscalls.closeFile(fd)
        throw PackageError(.changedOnDisk, "file changed kind on disk since it was loaded:", path: path.string)
      }
      do { try verifyLoad(of: status, path: path) } catch {
        Syscalls.closeFile(fd)
        throw error
      }
      origin!.status = status
    } catch let error as Errno {
      Syscalls.closeFile(fd)
      throw PackageError.io(error, "cannot read", path: path)
    }
    return fd
  }

  private func readFromDisk(mapping: Bool) throws -> Data {
    let fd = try openOnDisk()
    defer { Syscalls.closeFile(fd) }
    let path = origin!.absolutePath
    let size = Int(origin!.status.size)
    if mapping, size >= Self.mappingThreshold {
      do {
        let address = try Syscalls.mapReadOnly(fd, length: size)
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { Syscalls.unmap($0, length: $1) })
      } catch {
        throw PackageError.io(error, "cannot map", path: path)
      }
    }
    // Read until end of file rather than trusting the size: the file may have grown since fstat.
    var data = Data(count: max(size, 0) + 1)
    var filled = 0
    while true {
      if filled == data.count { data.count += max(data.count, 4096) }
      let result = data.withUnsafeMutableBytes { bytes in
        Result { () throws(Errno) in
          try Syscalls.readBytes(fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]))
        }
      }
      let count: Int
      do throws(Errno) { count = try result.get() } catch {
        throw PackageError.io(error, "cannot read", path: path)
      }
      if count == 0 { break }
      filled += count
    }
    data.count = filled
    return data
  }

  func requireKind(_ wanted: NodeKind) throws {
    guard kind == wanted else {
      let code: PackageError.Code =
        switch wanted {
        case .file: .notARegularFile
        case .directory: .notADirectory
        case .symlink: .notASymbolicLink
        }
      let what =
        switch wanted {
        case .file: "not a regular file:"
        case .directory: "not a directory:"
        case .symlink: "not a symbolic link:"
        }
      throw PackageError(code, what, path: path.isEmpty ? name : path, context: "(it is a \(kind))")
    }
  }
}
