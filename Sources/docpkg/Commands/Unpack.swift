import ArgumentParser
import DocPkgCommandLine
import DocumentArchive
import DocumentPackage
import SystemPackage

/// `docpkg unpack ARCHIVE -o DESTDIR`: safe, atomic extraction.
struct Unpack: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unpack",
    abstract: "Extract an archive's top-level entries into a directory, safely and atomically.",
    discussion: """
      Extracts into a temporary folder inside DESTDIR and renames each top-level entry into place: on any error \
      nothing is left. Refuses unsafe entries (.., absolute paths, links out of the package, devices, duplicates, \
      damaged data, names DESTDIR's file system cannot hold or tell apart, such as a.txt beside A.txt on exFAT) \
      and archive bombs (see the limits); with --skip-special, devices, FIFOs and sockets are left \
      out instead (each named on stderr). Prints the path of each entry created. With ARCHIVE -, the archive is \
      read from standard input (copied first into a hidden temporary file in DESTDIR). An entry already in \
      DESTDIR stops the unpack before anything is extracted, unless --force is given. A missing DESTDIR is made, \
      with its missing parents, as unzip -d makes it (and removed again if the unpack fails). A killed unpack never \
      leaves a partial entry; with --sync (or --force) not even a power loss does.
      """
  )

  @Argument(
    help: "The archive: zip, tar, tar.gz, tar.bz2, tar.xz or tar.zst; - for standard input.", completion: .file())
  var archive: String

  @Option(name: [.short, .customLong("output")], help: "The directory to extract into.", completion: .directory)
  var output: String = "."

  @Flag(help: "Replace existing entries of the same name (atomically).")
  var force = false

  @Option(help: "Most bytes to extract in all (default: 64 GiB).")
  var maxSize: Int64?

  @Option(help: "Most entries.")
  var maxEntries: Int = UnpackLimits().maxEntryCount

  @Option(help: "Most bytes extracted per byte of archive.")
  var maxRatio: Double = UnpackLimits().maxCompressionRatio

  @Flag(help: "Skip devices, FIFOs and sockets (each reported on stderr) instead of refusing the archive.")
  var skipSpecial = false

  @Flag(
    name: .customLong("sync"),
    help: "Write the extracted files to disk before renaming them into place (always done with --force).")
  var durable = false

  @OptionGroup var quietOption: QuietOption
  private var quiet: Bool { quietOption.quiet }

  func validate() throws {
    if archive == "-", Syscalls.isTerminal(0) {
      throw ValidationError("refusing to read an archive from a terminal: redirect standard input, or name the archive")
    }
    // `nan` compares false with every ratio, so it would let every bomb through; `inf` says so plainly.
    guard maxRatio.isFinite || maxRatio == .infinity, maxRatio >= 1 else {
      throw ValidationError("--max-ratio must be a number of at least 1 (or inf), not '\(maxRatio)'")
    }
    guard maxEntries >= 1 else { throw ValidationError("--max-entries must be at least 1, not \(maxEntries)") }
    if let maxSize, maxSize < 0 { throw ValidationError("--max-size must not be negative, not \(maxSize)") }
  }

  /// The option that raises the limit `error` says was exceeded (UnpackLimits' three checks).
  private static func option(raising error: PackageError) -> String {
    if error.message.hasPrefix("too many entries") { return "--max-entries" }
    if error.message.hasPrefix("archive expands more than") { return "--max-ratio" }
    return "--max-size"
  }

  func run() throws {
    let limits = UnpackLimits(
      maxTotalSize: maxSize ?? UnpackLimits().maxTotalSize, maxEntryCount: maxEntries, maxCompressionRatio: maxRatio)
    let bar = ProgressBar("unpacking", quiet: quiet)
    let report: UnpackReport
    do {
      defer { bar.finish() }
      let options = UnpackOptions(
        replaceExisting: force, limits: limits, skipSpecialFiles: skipSpecial, durable: durable,
        createsDestination: true)
      do {
        report = try Interruption.cancellingOnSignals { cancellation in
          if archive == "-" {
            return try ArchiveUnpacker.unpackReporting(
              reading: .standardInput, label: "standard input", into: FilePath(output), options: options,
              cancellation: cancellation
            ) { bar.update($0) }
          }
          return try ArchiveUnpacker.unpackReporting(
            FilePath(archive), into: FilePath(output), options: options, cancellation: cancellation
          ) { bar.update($0) }
        }
      } catch var error as PackageError where error.code == .nameTaken {
        error.context += error.context.isEmpty ? "(use --force to replace it)" : " (use --force to replace it)"
        throw error
      } catch var error as PackageError where error.code == .limitExceeded {
        error.context = error.context.replacing(
          "raise the limit to allow it", with: "unpack with a higher \(Self.option(raising: error)) to allow it")
        throw error
      }
    }
    for skipped in report.skipped {
      StandardError.write("docpkg: skipped '\(skipped.path.escapingName)': \(skipped.reason)\n")
    }
    let names = report.created
    let out = StandardOutput.shared
    for name in names {
      out.write((output == "." ? name : FilePath(output).appending(name).string).escapingName + "\n")
    }
  }
}
