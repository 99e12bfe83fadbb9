import ArgumentParser

/// `docpkg versions show PACKAGE ID [ENTRY]`: `inspect PACKAGE@ID`, or `cat PACKAGE@ID ENTRY`.
struct VersionsShow: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show", abstract: "Print a version's tree, or the bytes of one of its files.")

  @Argument(help: "The package.", completion: .file())
  var package: String

  @Argument(help: "The version's id (see versions list).")
  var id: Int

  @Argument(help: "A file inside the version: print its bytes.")
  var entry: String?

  func run() throws {
    let version = "\(package)@\(id)"
    if let entry {
      try Cat.parse([version, entry]).run()
    } else {
      try Inspect.parse([version]).run()
    }
  }
}
