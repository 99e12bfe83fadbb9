import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions remove PACKAGE ID... | --resolved`.
struct VersionsRemove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Remove versions, or every resolved conflict version.")

  @Argument(help: "The package.", completion: .file())
  var package: String

  @Argument(help: "The versions' ids.")
  var ids: [Int] = []

  @Flag(help: "Remove every resolved conflict version.")
  var resolved = false

  func run() throws {
    let store = try VersionStore(forPackageAt: FilePath(package))
    if resolved { try store.removeResolvedConflicts() }
    if !ids.isEmpty { try store.remove(ids) }
  }
}
