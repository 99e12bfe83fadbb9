import ArgumentParser
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

/// `docpkg versions prune PACKAGE [--keep N]`.
struct VersionsPrune: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "prune",
    abstract: "Remove the oldest versions beyond the newest N (never an unresolved conflict version).")

  @Argument(help: "The package.", completion: .file())
  var package: String

  @Option(help: "How many versions to keep.")
  var keep: Int = 10

  func run() throws {
    let removed = try VersionStore(forPackageAt: FilePath(package)).prune(keepingLast: keep)
    StandardOutput.shared.write("removed \(removed.count) version\(removed.count == 1 ? "" : "s")\n")
  }
}
