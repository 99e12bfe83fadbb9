import ArgumentParser
import DocumentSync
import SystemPackage

/// `docpkg clone s3://BUCKET/PREFIX DEST --endpoint URL`.
struct CloneCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clone",
    abstract: "Make a new package from a remote's state; the remote becomes its 'origin'.")

  @Argument(help: "s3://BUCKET/PREFIX") var url: String
  @Argument(help: "The new package's path.", completion: .file()) var destination: String
  @Option(help: "The server: http[s]://HOST[:PORT].") var endpoint: String
  @Option(help: "The region requests are signed for (default: AWS_REGION, else us-east-1).") var region: String?
  @OptionGroup var quietOption: QuietOption

  func run() throws {
    let credentials = try environmentCredentials()
    let bar = SyncProgressBar("cloning", quiet: quietOption.quiet)
    let handler = bar.handler
    let (url, endpoint, region, destination) = (url, endpoint, region, FilePath(destination))
    try runBlocking {
      _ = try await PackageSync.clone(
        from: url, endpoint: endpoint, to: destination, credentials: credentials, region: region, progress: handler)
    }
    bar.finish()
  }
}
