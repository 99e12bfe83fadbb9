import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg rm PACKAGE ENTRY [-r]`: removes an entry with one atomic save.
struct Remove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm",
    abstract: "Remove a file, link or directory from a package, atomically.",
    discussion: "A directory that is not empty is removed only with -r."
  )

  @OptionGroup var location: PackageEntryArguments
  private var package: String { location.package }
  private var entry: String { location.entry }

  @Flag(name: .shortAndLong, help: "Remove a directory and everything in it.")
  var recursive = false

  @OptionGroup var versionOptions: VersionPolicyOption

  func run() throws {
    try location.requireWritableEntry()
    let packageFile = try PackageFile(at: FilePath(package), options: .holdLock)
    packageFile.versionPolicy = try versionOptions.policy
    packageFile.deferVersionCopies()
    defer { packageFile.close() }
    let entry = location.entry(in: packageFile.root)
    let node = try packageFile.root.node(at: entry)
    if node.kind == .directory, !recursive, try !node.children().isEmpty {
      throw PackageError(
        .invalidArgument, "directory not empty (use -r to remove it and its contents):", path: entry,
        context: "in '\(package)'")
    }
    try packageFile.root.removeNode(at: entry)
    try packageFile.save()
  }
}
