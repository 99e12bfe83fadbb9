import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions settle PACKAGE` (hidden): copies the contents of the versions saves left
/// pending into the store. `put`, `rm`, `versions restore` and `versions resolve` keep the
/// previous state in O(changed) (``PackageFile/defersVersionCopies``) and `PendingSettler` starts
/// this command as a detached process when they are done; any command that reads versions
/// settles first too.
struct VersionsSettle: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "settle",
    abstract: "Copy the contents of pending versions into the version store (run after saves).",
    shouldDisplay: false)

  @Argument(help: "The package.", completion: .file())
  var package: String

  func run() throws {
    try VersionStore(forPackageAt: FilePath(package)).settlePendingVersions()
  }

}
