import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions resolve PACKAGE [--keep current|ID] [--remove]`.
struct VersionsResolve: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Settle a package's conflicts: keep the current state or restore a version; mark conflicts resolved.")

  @Argument(help: "The package.", completion: .file())
  var package: String

  @Option(help: "current, or a version id to restore.")
  var keep: String = "current"

  @Flag(help: "Also remove the resolved conflict versions.")
  var remove = false

  func run() throws {
    var id: Int?
    if keep != "current" {
      guard let number = Int(keep) else { throw ValidationError("--keep takes current or a version id, not '\(keep)'") }
      id = number
    }
    let packageFile = try PackageFile(at: FilePath(package), options: [.holdLock])
    defer { packageFile.close() }
    packageFile.versionPolicy = .keepAll
    packageFile.deferVersionCopies()
    try packageFile.resolveConflicts(keeping: id, removing: remove)
  }
}
