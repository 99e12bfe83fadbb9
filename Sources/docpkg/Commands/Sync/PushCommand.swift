import ArgumentParser
import DocumentSync
import SystemPackage

/// `docpkg push PACKAGE [NAME]`.
struct PushCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "push",
    abstract: "Upload what the remote lacks and move its head to the package's state.",
    discussion: """
      Sends only the blobs and trees the remote does not have, then moves the remote's head with a conditional \
      write: when another device pushed first, nothing is overwritten and push fails, saying to pull first. \
      Prints 'up to date' or 'pushed N blobs, M trees (B bytes)'.
      """)

  @Argument(help: "The package.", completion: .file()) var package: String
  @Argument(help: "The remote (default origin).") var name = "origin"
  @OptionGroup var quietOption: QuietOption

  func run() throws {
    let sync = try PackageSync(packageAt: FilePath(package), remote: name, credentials: environmentCredentials())
    let bar = SyncProgressBar("pushing", quiet: quietOption.quiet)
    let handler = bar.handler
    let result = try runBlocking { try await sync.push(progress: handler) }
    bar.finish()
    switch result {
    case .upToDate: StandardOutput.shared.write("up to date\n")
    case .pushed(_, let blobs, let trees, let bytes):
      StandardOutput.shared.write("pushed \(blobs) blobs, \(trees) trees (\(bytes) bytes)\n")
    }
  }
}
