import DocumentPackage
import SystemPackage

/// Packs a package into a zip or tar archive, like `ditto -c -k --keepParent`.
///
///     let package = try PackageNode(contentsOf: "/home/ann/Trip.mydoc")
///     try ArchivePacker.pack(package, to: "/tmp/Trip.zip", options: PackOptions(format: .zip))
///
/// The package directory is the archive's top-level entry, except for a document zip (a
/// `mimetype` file at the package's root, as in ODF and EPUB), whose entries are the package's
/// children with `mimetype` first, stored, with no extra field.
public enum ArchivePacker {
  /// Writes `package` (read from disk, made in memory, or read from another archive) to `output`.
  ///
  /// Files, directories (empty ones too), symbolic links (as links), permissions and modification
  /// times are kept; names are UTF-8; zip entries over 4 GiB use zip64. The archive is written to
  /// an unnamed file in `output`'s folder (`O_TMPFILE`) and linked into place when complete: on
  /// failure, cancellation or a kill `output` is left as it was and nothing is left beside it
  /// (where `O_TMPFILE` is refused, a hidden temporary file is used, which a kill may leave).
  /// Only a regular file is replaced: a FIFO or character device at `output` (or a link to one)
  /// is written into as a stream; anything else there is refused and left alone.
  /// - Parameters:
  ///   - package: The package's root node; its name is the archive's top-level entry.
  ///   - output: The archive to write.
  ///   - options: Format, level and reproducibility.
  ///   - cancellation: Stops the packing (code `cancelled`) when cancelled from another thread.
  ///   - progress: Called on the calling thread as entries are written.
  /// - Returns: What was left out, because ``ArchiveUnpacker`` would refuse it: the FIFOs, sockets and devices in the
  ///   package's folders, and symbolic links that are absolute or lead out of the package (``PackReport``).
  /// - Throws: ``/DocumentPackage/PackageError`` naming the file that could not be read, or `output` if it cannot
  ///   be written (code `notARegularFile` if it is a directory, a link to a file or another kind that is kept).
  /// - Complexity: O(*n* + *b*) for *n* entries and *b* bytes; zip compression uses every core.
  @discardableResult
  public static func pack(
    _ package: PackageNode, to output: FilePath, options: PackOptions,
    cancellation: ArchiveCancellation? = nil, progress: ((ArchiveProgress) -> Void)? = nil
  ) throws -> PackReport {
    try checkLevel(options)
    try checkOutside(package, output)
    let plan = try makePlan(package, options: options, cancellation: cancellation, output: output.string)
    try OutputFile.write(to: output) { fd, path, seekable in
      try write(
        plan, to: fd, path: path, seekable: seekable, options: options, cancellation: cancellation, progress: progress)
    }
    return PackReport(skipped: plan.skipped, copies: plan.copies, bytes: plan.totalBytes)
  }

  /// Writes `package` as an archive to `output`, an open stream such as standard output or a
  /// pipe, from its current position, without seeking: a zip's large files are followed by data
  /// descriptors (their sizes and CRC come after their data), as `zip` does on a pipe.
  ///
  /// Unlike ``pack(_:to:options:cancellation:progress:)``, the output cannot be taken back on
  /// failure: whoever reads the stream sees a truncated archive, which every reader refuses.
  /// `output` is neither closed nor synced.
  /// - Parameters:
  ///   - package: The package's root node; its name is the archive's top-level entry.
  ///   - output: The stream to write to (it stays open).
  ///   - label: The name messages give the stream.
  ///   - options: Format, level and reproducibility.
  ///   - cancellation: Stops the packing (code `cancelled`) when cancelled from another thread.
  ///   - progress: Called on the calling thread, about ten times a second at most.
  /// - Returns: What was left out (``PackReport``).
  /// - Throws: ``/DocumentPackage/PackageError`` naming the file that could not be read, or `label` if the stream
  ///   cannot be written.
  @discardableResult
  public static func pack(
    _ package: PackageNode, writingTo output: FileDescriptor, label: String = "-", options: PackOptions,
    cancellation: ArchiveCancellation? = nil, progress: ((ArchiveProgress) -> Void)? = nil
  ) throws -> PackReport {
    try checkLevel(options)
    let plan = try makePlan(package, options: options, cancellation: cancellation, output: label)
    try write(
      plan, to: output.rawValue, path: label, seekable: false, options: options, cancellation: cancellation,
      progress: progress)
    return PackReport(skipped: plan.skipped, copies: plan.copies, bytes: plan.totalBytes)
  }

  /// Refuses an archive to be written inside the package being packed (`pack P -o P/P.zip`): its own bytes would be
  /// packed into it as it is being written (GNU tar skips it, naming it; one line and nothing written is clearer).
  /// - Throws: ``/DocumentPackage/PackageError`` `invalidArgument`, naming `output`.
  private static func checkOutside(_ package: PackageNode, _ output: FilePath) throws {
    guard let location = package.diskLocation, let root = Syscalls.resolvingLinks(location),
      let folder = Syscalls.resolvingLinks(
        output.removingLastComponent().isEmpty ? "." : output.removingLastComponent()),
      folder.starts(with: root)
    else { return }
    throw PackageError(
      .invalidArgument, "cannot write the archive inside the package being packed:", path: output.string,
      context: "(it is in '\(location.string)': write it outside the package)")
  }

  private static func checkLevel(_ options: PackOptions) throws {
    if let level = options.level, !PackOptions.levels(for: options.format).contains(level) {
      let range = PackOptions.levels(for: options.format)
      throw PackageError(
        .invalidArgument, "compression level \(level) is out of range for", path: options.format.rawValue,
        context: "(\(range.lowerBound)-\(range.upperBound))")
    }
  }

  private static func makePlan(
    _ package: PackageNode, options: PackOptions, cancellation: ArchiveCancellation?, output: String
  ) throws -> PackPlan {
    let fixedTime = options.reproducible ? (options.fixedModificationTime ?? PackOptions.defaultReproducibleTime) : nil
    return try PackPlan(
      root: package, format: options.format, fixedTime: fixedTime, cancellation: cancellation, output: output)
  }

  /// Writes the archive to `fd`; `seekable` says whether a zip's headers may be patched in place.
  private static func write(
    _ plan: PackPlan, to fd: CInt, path: String, seekable: Bool, options: PackOptions,
    cancellation: ArchiveCancellation?, progress: ((ArchiveProgress) -> Void)?
  ) throws {
    let documentLayout = plan.firstEntryIsMimetype
    switch options.format {
    case .zip:
      let writer = ZipWriter(fd: fd, path: path, seekable: seekable)
      writer.cancellation = cancellation
      var throttle = ProgressThrottle()
      let throttled = progress.map { callback in
        { (done: ArchiveProgress) in
          if throttle.isDue() || done.entriesDone == done.entriesTotal { callback(done) }
        }
      }
      try ZipPacking(
        plan: plan, writer: writer, level: options.level ?? 6, automaticLevel: options.level == nil,
        progress: throttled
      )
      .run(documentLayout: documentLayout)
      try writer.finish()
    default:
      let writer = try TarWriter(
        fd: fd, path: path, format: options.format, level: options.level,
        reproducible: options.reproducible)
      let reporter = ProgressReporter(
        entriesTotal: plan.entryCount, bytesTotal: plan.totalBytes, callback: progress)
      try plan.forEach { entry in
        try cancellation?.check(path)
        // A file on disk is opened before its header is written: a sparse one's header maps its data.
        let file = try entry.source.diskFile.map { try $0.open() }
        defer { file.map(Syscalls.closeFile) }
        let ranges = try file.flatMap { try sparseRanges(of: $0, entry) }
        try writer.write(
          entry, dataRanges: ranges,
          produce: contents(
            of: entry, file: file, dataRanges: ranges, plan: plan, cancellation: cancellation, output: path,
            reporter: reporter))
        reporter.add(entries: 1)
      }
      try writer.finish()
      reporter.finish()
    }
  }

  /// The ranges of the open file that hold data, if it has holes (`nil` for a file without any).
  private static func sparseRanges(of fd: CInt, _ entry: PackEntry) throws -> [Range<Int64>]? {
    guard case .disk(let file) = entry.source else { return nil }
    let path = file.path
    let ranges: [Range<Int64>]
    do throws(Errno) {
      ranges = try Syscalls.dataRanges(fd, size: entry.size)
      _ = try Syscalls.seek(fd, to: 0)
    } catch { throw PackageError.io(error, "cannot read", path: path) }
    return ranges == [0..<entry.size] ? nil : ranges
  }

  /// A function streaming a file entry's contents (from `file` when it is on disk: of a sparse one,
  /// its `dataRanges` read and its holes handed over as zeros, never read), or `nil` for other kinds.
  private static func contents(
    of entry: PackEntry, file: CInt?, dataRanges: [Range<Int64>]?, plan: PackPlan,
    cancellation: ArchiveCancellation?, output: String, reporter: ProgressReporter
  ) -> (
    ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  )? {
    switch entry.source {
    case .none: return nil
    case .node(let index):
      let node = plan.nodes[index]
      return { emit in
        try node.readContents(chunkSize: 1 << 20) {
          try cancellation?.check(output)
          try emit($0)
          reporter.add(bytes: Int64($0.count))
        }
      }
    case .disk(let disk):
      guard let fd = file else { return nil }
      let path = disk.path
      if let dataRanges {
        return { emit in
          try emitSparse(fd, path: path, size: entry.size, dataRanges: dataRanges) {
            try cancellation?.check(output)
            try emit($0)
            reporter.add(bytes: Int64($0.count))
          }
        }
      }
      return { emit in
        try Syscalls.readChunks(fd, path: path, chunkSize: 256 << 10) {
          try cancellation?.check(output)
          try emit($0)
          reporter.add(bytes: Int64($0.count))
        }
      }
    }
  }
}

extension ArchivePacker {
  /// Hands over a sparse file's `size` bytes: zeros for its holes, never read, and its data ranges
  /// read from `fd` (`Syscalls.readSparse`).
  /// - Throws: ``/DocumentPackage/PackageError`` naming `path` if it cannot be read or shrank; what `emit` throws.
  static func emitSparse(
    _ fd: CInt, path: FilePath, size: Int64, dataRanges: [Range<Int64>],
    _ emit: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: Syscalls.readBufferAlignment)
    defer { buffer.deallocate() }
    let handedOver: Int64
    do {
      handedOver = try Syscalls.readSparse(fd, size: size, dataRanges: dataRanges, buffer: buffer) { chunk, _, _ in
        try emit(chunk)
      }
    } catch let error as Errno {
      throw PackageError.io(error, "cannot read", path: path)
    }
    guard handedOver == size else {
      throw PackageError(.changedOnDisk, "file shrank while it was packed:", path: path.string)
    }
  }
}

/// The archive file: written unnamed in its destination's folder and linked into place when
/// complete (``UnnamedFile``), so a crash leaves the old OUT or the complete new one, never an
/// empty or partial file under OUT's name, and no temporary file.
///
/// Only a regular file (or nothing) at OUT is ever replaced. A FIFO or a character device, or a
/// symbolic link to one (`/dev/stdout`, `/dev/null`), is written into as a stream, as `tar -f`
/// does; anything else (a directory, a block device, a socket, a link to a file or a dangling
/// link) is refused, naming OUT, and left as it is.
enum OutputFile {
  /// Calls `body` with the descriptor to write, OUT's name and whether the descriptor may seek.
  static func write(to output: FilePath, _ body: (CInt, String, Bool) throws -> Void) throws {
    guard output.lastComponent != nil else {
      throw PackageError(.invalidArgument, "not a file name:", path: output.string)
    }
    // Nothing there (or nothing to stat): the atomic write reports what is wrong with the path.
    guard let status = try? Syscalls.statusNoFollow(output), status.kind != .file else {
      try UnnamedFile.write(to: output, label: "pack", mode: 0o666) { fd in try body(fd, output.string, true) }
      return
    }
    let target = status.kind == .symlink ? try? Syscalls.statusFollowing(output) : status
    guard let target, target.isStream else {
      let what: String
      switch (status.kind, target?.kind) {
      case (.directory, _): what = "(a directory)"
      case (.symlink, .file?): what = "(a symbolic link to a file: name the file itself)"
      case (.symlink, .directory?): what = "(a symbolic link to a directory)"
      case (.symlink, _) where target == nil: what = "(a dangling symbolic link)"
      default: what = "(a block device, a socket, or a link to one)"
      }
      throw PackageError(
        .notARegularFile, "refusing to replace what is not a regular file:", path: output.string, context: what)
    }
    try writeStream(to: output, body)
  }

  /// Opens the FIFO or character device at `output` (without creating or truncating anything)
  /// and hands it to `body` as a stream.
  private static func writeStream(to output: FilePath, _ body: (CInt, String, Bool) throws -> Void) throws {
    let fd: CInt
    do { fd = try Syscalls.openFile(output, [.writeOnly]) } catch {
      throw PackageError.io(error, "cannot open", path: output)
    }
    defer { Syscalls.closeFile(fd) }
    // What was opened is what was looked at: not swapped for a regular file in between.
    let opened = try Syscalls.io("cannot open", path: output.string) { () throws(Errno) in try Syscalls.status(of: fd) }
    guard opened.isStream else {
      throw PackageError(.changedOnDisk, "changed while it was opened:", path: output.string)
    }
    if Syscalls.isTerminal(fd) {
      throw PackageError(.invalidArgument, "refusing to write an archive to a terminal:", path: output.string)
    }
    try body(fd, output.string, false)
  }
}
