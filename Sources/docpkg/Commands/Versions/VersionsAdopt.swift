import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions adopt PACKAGE`.
struct VersionsAdopt: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "adopt",
    abstract: "Attach the version store beside a package to it (after another program replaced the package).")

  @Argument(help: "The package.", completion: .file())
  var package: String

  func run() throws { try VersionStore.adopt(packageAt: FilePath(package)) }
}
