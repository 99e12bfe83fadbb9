import ArgumentParser
import DocPkgCommandLine
import DocumentArchive
import DocumentPackage
import SystemPackage

/// `docpkg cat PACKAGE ENTRY`: one file's bytes to standard output.
struct Cat: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cat",
    abstract: "Write the bytes of one file in a package to standard output.",
    discussion: """
      ENTRY is a path inside the package, such as Data/notes.txt, without the package's own name; a name that is \
      not UTF-8 is written as inspect shows it (\\xE9 for the byte 0xE9, \\\\ for a backslash). Files are \
      streamed, whatever their size.
      """
  )

  @OptionGroup var location: PackageEntryArguments
  private var package: String { location.package }
  private var entry: String { location.entry }

  func run() throws {
    do { try write() } catch let error as PackageError where Self.entryCodes.contains(error.code) {
      throw hinting(naming(error))
    }
  }

  /// `error` with a hint when ENTRY starts with the package's own name (`S.pkg/a.txt` in an archive whose top
  /// folder is `S.pkg`), and the rest names an entry: the command to run.
  private func hinting(_ error: PackageError) -> PackageError {
    let parts = entry.split(separator: "/", omittingEmptySubsequences: true)
    guard error.code == .noSuchEntry, parts.count > 1, error.path == String(parts[0]),
      let root = try? openPackage(package), root.name == error.path
    else { return error }
    let rest = parts.dropFirst().joined(separator: "/")
    guard (try? root.node(at: rest)) != nil else { return error }
    var hinted = error
    hinted.context += " (ENTRY is a path inside the package, without its name: docpkg cat '\(package)' '\(rest)')"
    return hinted
  }

  /// The errors that name the entry asked for, within the package.
  private static let entryCodes: [PackageError.Code] = [.noSuchEntry, .notADirectory, .notARegularFile]

  /// `error` naming the archive the entry was looked for in too, as an error of a package on disk names the package.
  private func naming(_ error: PackageError) -> PackageError {
    let archive = "in '\(package)'"
    guard !error.context.hasSuffix(archive), ArchiveFormat(contentsOf: FilePath(package)) != nil else { return error }
    var named = error
    named.context = error.context.isEmpty ? archive : error.context + " " + archive
    return named
  }

  /// Writes the entry ENTRY names: read as the CLI shows names (`\xNN` a byte of a name that is not UTF-8,
  /// `\\` a backslash), else as it is written.
  private func write() throws {
    var first: PackageError?
    for reading in location.entryReadings {
      do { return try write(reading) } catch let error as PackageError where error.code == .noSuchEntry {
        first = first ?? error
      }
    }
    throw first!
  }

  private func write(_ entry: String) throws {
    let out = StandardOutput.shared
    // A file in a zip: found through the central directory, without building the archive's tree.
    if let source = try ArchivePackage.zipFileContents(at: entry, in: FilePath(package)) {
      try source.read(chunkSize: 1 << 20) { out.write(bytes: $0) }
      return
    }
    let root = try openPackage(package, keepingContentsOf: entry)
    let node = try root.node(at: entry)
    try node.readContents { out.write(bytes: $0) }
  }
}
