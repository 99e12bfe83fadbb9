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
    discussion: "ENTRY is a path inside the package, such as Data/notes.txt. Files are streamed, whatever their size."
  )

  @OptionGroup var location: PackageEntryArguments
  private var package: String { location.package }
  private var entry: String { location.entry }

  func run() throws {
    let out = StandardOutput.shared
    // A file in a zip: found through the central directory, without building the archive's tree.
    if let source = try ArchivePackage.zipFileContents(at: entry, in: FilePath(package)) {
      try source.read(chunkSize: 1 << 20) { out.write(bytes: $0) }
      return
    }
    let root = try openPackage(package)
    let node = try root.node(at: entry)
    try node.readContents { out.write(bytes: $0) }
  }
}
