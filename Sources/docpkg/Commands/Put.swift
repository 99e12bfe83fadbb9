import ArgumentParser
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `docpkg put PACKAGE ENTRY [SOURCE|-]`: writes one file into a package with one atomic save.
struct Put: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "put",
    abstract: "Write a file into a package, atomically.",
    discussion: """
      ENTRY is a path inside the package, such as Data/notes.txt; missing directories on the way are created. \
      The bytes come from SOURCE, or from standard input when SOURCE is - or absent. A file that is there is \
      replaced and keeps its permissions. The package is locked from load to save, so concurrent puts of \
      different entries never lose each other's work; after a crash the package is the old or the new one.
      """
  )

  @OptionGroup var location: PackageEntryArguments
  private var package: String { location.package }
  private var entry: String { location.entry }

  @Argument(
    help: "The file to copy in (a FIFO such as <(cmd) is read as a stream), or - for standard input.",
    completion: .file())
  var source: String = "-"

  @Flag(help: "Create the package if it does not exist.")
  var create = false

  @Flag(help: "Append to the file instead of replacing it.")
  var append = false

  @Flag(
    help: ArgumentHelp(
      "Do not lock from load to save; if another writer saved meanwhile, merge (or keep a conflict version).",
      discussion: "Prints saved, merged or conflict VERSION."))
  var merge = false

  @OptionGroup var versionOptions: VersionPolicyOption

  func run() throws {
    try location.requireWritableEntry()
    let policy = try versionOptions.policy
    var cleanups: [() -> Void] = []
    defer { cleanups.forEach { $0() } }
    // The bytes first: a source that cannot be read refuses the put before anything is made.
    let path = FilePath(package)
    let payload = try readPayload(spoolingIn: path.removingLastComponent(), &cleanups)
    let locking: PackageFile.Options = merge ? [] : [.holdLock]
    let packageFile = try PackageFile(at: path, options: create ? locking.union(.create) : locking)
    defer { packageFile.close() }
    do { try save(payload, into: packageFile, policy: policy) } catch {
      // A put refused (a name the model or the file system refuses) leaves no package it made.
      packageFile.removeIfCreatedAndEmpty()
      throw error
    }
  }

  /// The bytes to put: the whole source for `--append`, else a file to copy from.
  private enum Payload {
    case appended(Data)
    case file(DiskFileSource)
  }

  private func readPayload(spoolingIn directory: FilePath, _ cleanups: inout [() -> Void]) throws -> Payload {
    // A FIFO or character-device SOURCE (`<(cmd)`) is a stream, read as standard input is.
    let stream = source == "-" ? .standardInput : try StandardInput.stream(at: FilePath(source))
    defer { stream?.close() }
    if append {
      return .appended(
        try stream.map { try StandardInput.readAll($0) } ?? DiskFileSource(path: FilePath(source)).readAll())
    }
    if let stream {
      let spooled = try StandardInput.asFile(stream, spoolingIn: directory)
      cleanups.append(spooled.cleanup)
      return .file(spooled.source)
    }
    return .file(try DiskFileSource(path: FilePath(source)))
  }

  /// Sets the entry in `root` (a file there is replaced or appended to; anything else is refused).
  private func write(_ payload: Payload, into root: PackageNode) throws {
    let entry = location.entry(in: root)
    let existing = try root.nodeIfPresent(at: entry)
    if let existing, existing.kind != .file {
      throw PackageError(
        .notARegularFile, "cannot put a file over a \(existing.kind):", path: entry, context: "in '\(package)'")
    }
    switch payload {
    case .appended(let data):
      var contents = try existing?.contents() ?? Data()
      contents.append(data)
      try root.setFile(at: entry, contents: contents)
    case .file(let contents):
      if let existing {
        try existing.setContents(from: contents)
      } else {
        try root.setNode(PackageNode(regularFileWithSource: contents), at: entry)
      }
    }
  }

  /// Writes the entry into the package opened as `packageFile` and saves it (merging with `--merge`).
  private func save(_ payload: Payload, into packageFile: PackageFile, policy: VersionPolicy) throws {
    packageFile.versionPolicy = policy
    packageFile.deferVersionCopies()
    try write(payload, into: packageFile.root)
    if merge {
      switch try packageFile.saveMerging() {
      case .saved: StandardOutput.shared.write("saved\n")
      case .merged: StandardOutput.shared.write("merged\n")
      case .conflict(let version, _): StandardOutput.shared.write("conflict \(version)\n")
      }
    } else {
      try packageFile.save()
    }
  }
}
