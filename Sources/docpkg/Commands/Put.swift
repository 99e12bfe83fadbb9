import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg put PACKAGE ENTRY [SOURCE|-]`: writes one file into a package with one atomic save.
struct Put: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a file into a package, atomically.",
    discussion: """
      ENTRY is a path inside the package, such as Data/notes.txt; missing directories on the way are created. \
      The bytes come from SOURCE, or from standard input when SOURCE is - or absent. A file that is there is \
      replaced and keeps its permissions. The package is locked from load to save, so concurrent puts of \
      different entries never lose each other's work; after a crash the package is the old or the new one.
      """
  )

  @Argument(help: "The package.")
  var package: String

  @Argument(help: "The file inside the package.")
  var entry: String

  @Argument(help: "The file to copy in, or - for standard input (the default).")
  var source: String = "-"

  @Flag(help: "Create the package if it does not exist.")
  var create = false

  func run() throws {
    let document = try PackageDocument(at: FilePath(package), options: create ? [.holdLock, .create] : [.holdLock])
    defer { document.close() }
    let root = document.root
    let existing = try root.nodeIfPresent(at: entry)
    if let existing, existing.kind != .file {
      throw PackageError(
        .notARegularFile, "cannot put a file over a \(existing.kind):", path: entry, context: "in '\(package)'")
    }
    if source == "-" {
      try root.setFile(at: entry, contents: StandardInput.readAll())
    } else {
      let contents = try DiskFileSource(path: FilePath(source))
      if let existing {
        try existing.setContents(from: contents)
      } else {
        try root.setNode(PackageNode(regularFileWithSource: contents), at: entry)
      }
    }
    try document.save()
  }
}
