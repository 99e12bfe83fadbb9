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
  /// - Parameters:
  ///   - package: The package's root node; its name is the archive's top-level entry.
  ///   - output: The archive to write.
  ///   - options: Format, level and reproducibility.
  ///   - cancellation: Stops the packing (code `cancelled`) when cancelled from another thread.
  ///   - progress: Called on the calling thread as entries are written.
  /// - Throws: ``PackageError`` naming the file that could not be read, or `output` if it cannot
  ///   be written.
  /// - Complexity: O(*n* + *b*) for *n* entries and *b* bytes; zip compression uses every core.
  public static func pack(
    _ package: PackageNode, to output: FilePath, options: PackOptions,
    cancellation: ArchiveCancellation? = nil, progress: ((ArchiveProgress) -> Void)? = nil
  ) throws {
    if let level = options.level, !PackOptions.levels(for: options.format).contains(level) {
      let range = PackOptions.levels(for: options.format)
      throw PackageError(
        .invalidArgument, "compression level \(level) is out of range for", path: options.format.rawValue,
        context: "(\(range.lowerBound)-\(range.upperBound))")
    }
    let fixedTime = options.reproducible ? (options.fixedModificationTime ?? PackOptions.defaultReproducibleTime) : nil
    let plan = try PackPlan(root: package, format: options.format, fixedTime: fixedTime)
    let documentLayout = plan.entries.first?.name == "mimetype"
    try OutputFile.write(to: output) { fd, path in
      switch options.format {
      case .zip:
        let writer = ZipWriter(fd: fd, path: path)
        writer.cancellation = cancellation
        try ZipPacking(
          plan: plan, writer: writer, level: options.level ?? 6, automaticLevel: options.level == nil,
          progress: progress
        )
        .run(documentLayout: documentLayout)
        try writer.finish()
      default:
        let writer = try TarWriter(
          fd: fd, path: path, format: options.format, level: options.level,
          reproducible: options.reproducible)
        var done = ArchiveProgress(
          entriesDone: 0, entriesTotal: plan.entries.count, bytesDone: 0, bytesTotal: plan.totalBytes)
        for entry in plan.entries {
          try cancellation?.check(path)
          try writer.write(entry, produce: contents(of: entry, plan: plan, cancellation: cancellation, output: path))
          done.entriesDone += 1
          done.bytesDone += entry.size
          if done.entriesDone % 64 == 0 || entry.size > 1 << 20 { progress?(done) }
        }
        try writer.finish()
        progress?(done)
      }
    }
  }

  /// A function streaming a file entry's contents, or `nil` for other kinds.
  private static func contents(
    of entry: PackEntry, plan: PackPlan, cancellation: ArchiveCancellation?, output: String
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
        }
      }
    case .disk(let path):
      return { emit in
        let fd: CInt
        do throws(Errno) { fd = try Syscalls.openFile(FilePath(path), [.readOnly, .noFollow]) } catch {
          throw PackageError.io(error, "cannot open", path: path)
        }
        defer { Syscalls.closeFile(fd) }
        try Syscalls.readChunks(fd, path: FilePath(path)) {
          try cancellation?.check(output)
          try emit($0)
        }
      }
    }
  }
}

/// The archive file: written unnamed in its destination's folder and linked into place when
/// complete (``UnnamedFile``), so a crash leaves the old OUT or the complete new one, never an
/// empty or partial file under OUT's name, and no temporary file.
enum OutputFile {
  static func write(to output: FilePath, _ body: (CInt, String) throws -> Void) throws {
    guard output.lastComponent != nil else {
      throw PackageError(.invalidArgument, "not a file name:", path: output.string)
    }
    try UnnamedFile.write(to: output, label: "pack", mode: 0o666) { fd in try body(fd, output.string) }
  }
}
