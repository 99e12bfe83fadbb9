import ArgumentParser
import DocumentPackage

/// `docpkg cat PACKAGE ENTRY`: one file's bytes to standard output.
struct Cat: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write the bytes of one file in a package to standard output.",
    discussion: "ENTRY is a path inside the package, such as Data/notes.txt. Files are streamed, whatever their size."
  )

  @Argument(help: "The package.")
  var package: String

  @Argument(help: "The file inside the package.")
  var entry: String

  func run() throws {
    let root = try PackageOpener.open(package)
    let node = try root.node(at: entry)
    let out = StandardOutput.shared
    try node.readContents { out.write(bytes: $0) }
  }
}
