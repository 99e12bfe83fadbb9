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
    let locking: PackageFile.Options = merge ? [] : [.holdLock]
    let packageFile = try PackageFile(at: FilePath(package), options: create ? locking.union(.create) : locking)
    packageFile.versionPolicy = try versionOptions.policy
    packageFile.deferVersionCopies()
    var cleanups: [() -> Void] = []
    defer {
      packageFile.close()
      cleanups.forEach { $0() }
    }
    let root = packageFile.root
    let existing = try root.nodeIfPresent(at: entry)
    if let existing, existing.kind != .file {
      throw PackageError(
        .notARegularFile, "cannot put a file over a \(existing.kind):", path: entry, context: "in '\(package)'")
    }
    // A FIFO SOURCE (`<(cmd)`) is a stream, read as standard input is.
    let stream = source == "-" ? .standardInput : try StandardInput.stream(at: FilePath(source))
    defer { stream?.close() }
    if append {
      var contents = try existing?.contents() ?? Data()
      contents.append(
        try stream.map { try StandardInput.readAll($0) } ?? DiskFileSource(path: FilePath(source)).readAll())
      try root.setFile(at: entry, contents: contents)
    } else {
      let contents: DiskFileSource
      if let stream {
        let spooled = try StandardInput.asFile(stream, spoolingIn: packageFile.path.removingLastComponent())
        contents = spooled.source
        cleanups.append(spooled.cleanup)
      } else {
        contents = try DiskFileSource(path: FilePath(source))
      }
      if let existing {
        try existing.setContents(from: contents)
      } else {
        try root.setNode(PackageNode(regularFileWithSource: contents), at: entry)
      }
    }
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
