import ArgumentParser
import DocPkgCommandLine
import DocumentArchive
import DocumentPackage
import SystemPackage

/// `docpkg pack PACKAGE -o OUT`: the package as a zip or tar archive.
struct Pack: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pack",
    abstract: "Pack a package into a zip or tar archive whose top-level entry is the package.",
    discussion: """
      The format comes from OUT's extension (.zip, .tar, .tar.gz, .tar.bz2, .tar.xz, .tar.zst) unless --format is given. \
      With -o -, the archive goes to standard output (a zip unless --format says otherwise); docpkg refuses to write \
      it to a terminal. \
      Bytes, permissions, symbolic links, empty directories, Unicode names and modification times are kept. \
      --reproducible writes byte-identical archives for identical packages: sorted entries, every time set to \
      SOURCE_DATE_EPOCH (or 1980-01-01), no owners, no gzip timestamp, whatever the time zone.
      """
  )

  @Argument(help: "The package to pack.", completion: .file())
  var package: String

  @Option(
    name: [.short, .customLong("output")],
    help: "The archive to write (replaced if it exists), or - for standard output.",
    completion: .file())
  var output: String

  @Option(
    help: "zip, tar, tar.gz (tgz), tar.bz2, tar.xz or tar.zst; must agree with OUT's extension.",
    completion: .list(ArchiveFormat.allCases.map(\.rawValue)))
  var format: String?

  @Option(help: "Compression level (0-9; zstd 1-19).")
  var level: Int?

  @Flag(help: "Byte-identical output for identical input.")
  var reproducible = false

  @OptionGroup var quietOption: QuietOption
  private var quiet: Bool { quietOption.quiet }

  /// --format's, else OUT's extension's, else zip for standard output.
  private var chosenFormat: ArchiveFormat? {
    format.flatMap(ArchiveFormat.init(name:)) ?? (output == "-" ? .zip : ArchiveFormat(fileName: output))
  }

  func validate() throws {
    if let format, ArchiveFormat(name: format) == nil {
      throw ValidationError("unknown format '\(format)' (zip, tar, tar.gz or tgz, tar.bz2, tar.xz, tar.zst)")
    }
    if output == "-" {
      if Syscalls.isTerminal(1) {
        throw ValidationError("refusing to write an archive to a terminal: redirect standard output, or use -o FILE")
      }
    } else if format == nil, ArchiveFormat(fileName: output) == nil {
      throw ValidationError("cannot tell the format from '\(output)': use --format")
    }
    if let named = format.flatMap(ArchiveFormat.init(name:)), output != "-",
      let implied = ArchiveFormat(fileName: output),
      named != implied
    {
      throw ValidationError("--format \(format!) and the extension of '\(output)' (\(implied)) disagree")
    }
    if let level, let chosen = chosenFormat,
      !PackOptions.levels(for: chosen).contains(level)
    {
      let range = PackOptions.levels(for: chosen)
      throw ValidationError("--level \(level) is out of range for \(chosen) (\(range.lowerBound)-\(range.upperBound))")
    }
  }

  func run() throws {
    let archiveFormat = chosenFormat!
    var options = PackOptions(format: archiveFormat, level: level, reproducible: reproducible)
    if reproducible, let epoch = Syscalls.environment("SOURCE_DATE_EPOCH").flatMap({ Int64($0) }) {
      options.fixedModificationTime = epoch
    }
    let root = try openPackage(package)
    guard root.kind == .directory else {
      throw PackageError(.notADirectory, "not a package (a package is a directory):", path: package)
    }
    let bar = ProgressBar("packing", quiet: quiet)
    defer { bar.finish() }
    let report = try Interruption.cancellingOnSignals { cancellation in
      if output == "-" {
        return try ArchivePacker.pack(
          root, writingTo: .standardOutput, label: "standard output", options: options, cancellation: cancellation
        ) { bar.update($0) }
      } else {
        return try ArchivePacker.pack(root, to: FilePath(output), options: options, cancellation: cancellation) {
          bar.update($0)
        }
      }
    }
    bar.finish()
    // As zip does: one line per entry left out, and the archive still made.
    for skipped in report.skipped {
      StandardError.write(
        "docpkg: skipped '\(skipped.path.escapingName)': "
          + "\(skipped.reason.escapingControlCharacters) (not packed: unpack would refuse it)\n")
    }
    // A hard link's bytes are stored again, as zip stores them: an unpack makes two files.
    for copy in report.copies {
      StandardError.write(
        "docpkg: note: '\(copy.path.escapingName)' is a hard link to '\(copy.original.escapingName)': "
          + "stored as a copy (an unpack makes two files)\n")
    }
    // A large file of zeros or a sparse file packs small: say so now, not when unpack refuses the archive.
    if output != "-", let status = try? Syscalls.statusFollowing(FilePath(output)), status.kind == .file,
      report.exceedsRatio(archiveSize: status.size)
    {
      let ratio = Int((Double(report.bytes) / Double(max(status.size, 1))).rounded(.up))
      let limit = Int(UnpackLimits().maxCompressionRatio)
      StandardError.write(
        "docpkg: note: '\(output.escapingControlCharacters)' expands \(ratio) times its size, more than unpack "
          + "allows by default (\(limit)): unpack it with --max-ratio \(ratio)\n")
    }
  }
}
