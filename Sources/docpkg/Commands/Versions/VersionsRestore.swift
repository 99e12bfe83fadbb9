import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions restore PACKAGE ID`.
struct VersionsRestore: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Make a version the package's state again, atomically; the replaced state is kept as a version.",
    discussion: """
      A restore removes no version to make room for the one it keeps (the limit of put and rm, 10 by default, is \
      not applied): the state it replaces may be the one wanted next. The next put or rm prunes to its limit.
      """)

  @Argument(help: "The package.", completion: .file())
  var package: String

  @Argument(help: "The version's id (see versions list).")
  var id: Int

  func run() throws {
    try fetchRemoteFiles(ofVersion: id, of: FilePath(package))
    let packageFile = try PackageFile(at: FilePath(package), options: [.holdLock])
    defer { packageFile.close() }
    packageFile.versionPolicy = .keepAll  // restoring must never prune what the user may want next
    packageFile.deferVersionCopies()
    try packageFile.restoreVersion(id)
  }
}
