import ArgumentParser
import DocumentSync
import SystemPackage

/// `docpkg pull PACKAGE [NAME]`.
struct PullCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pull",
    abstract: "Bring the package to the remote's state with one atomic save.",
    discussion: """
      Prints 'up to date', 'fast-forward' (no local changes since the last sync), 'merged' (both sides changed \
      different entries; push next), or 'conflict ID PATH...' (both changed the same entries: the package's \
      state is kept as the unresolved conflict version ID, the entries take the remote's side; see \
      'docpkg versions resolve'). Downloaded blobs are checked against their SHA-256.
      """)

  @Argument(help: "The package.", completion: .file()) var package: String
  @Argument(help: "The remote (default origin).") var name = "origin"
  @OptionGroup var quietOption: QuietOption

  func run() throws {
    let sync = try PackageSync(packageAt: FilePath(package), remote: name, credentials: environmentCredentials())
    let bar = SyncProgressBar("pulling", quiet: quietOption.quiet)
    let handler = bar.handler
    let result = try runBlocking { try await sync.pull(progress: handler) }
    bar.finish()
    let out = StandardOutput.shared
    switch result {
    case .remoteEmpty: out.write("remote is empty\n")
    case .upToDate: out.write("up to date\n")
    case .fastForwarded: out.write("fast-forward\n")
    case .merged: out.write("merged\n")
    case .conflict(let version, let paths): out.write("conflict \(version) \(paths.joined(separator: " "))\n")
    }
  }
}
