import ArgumentParser
import DocumentPackage

/// `docpkg cat PACKAGE ENTRY`: one file's bytes to standard output.
struct Cat: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write the bytes of one file in a package to standard output.",
    discussion: "ENTRY is a path inside the package, such as Data/notes.txt. Files are streamed, whatever their size."
  )

  @OptionGroup var location: PackageEntryArguments
  private var package: String { location.package }
  private var entry: String { location.entry }

  func run() throws {
    let root = try openPackage(package)
    let node = try root.node(at: entry)
    let out = StandardOutput.shared
    try node.readContents { out.write(bytes: $0) }
  }
}
