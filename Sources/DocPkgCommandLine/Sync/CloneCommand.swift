import ArgumentParser

/// `docpkg clone s3://BUCKET/PREFIX DEST --endpoint URL`.
package struct CloneCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "clone",
      abstract: "Make a new package from a remote's state; the remote becomes its 'origin'.")
  }

  @Argument(help: "s3://BUCKET/PREFIX") package var url: String
  @Argument(help: "The new package's path.", completion: .file()) package var destination: String
  @Option(help: "The server: http[s]://HOST[:PORT].") package var endpoint: String
  @Option(
    help:
      "The region requests are signed for (default: AWS_REGION, else the profile's region in ~/.aws/config, else us-east-1)."
  ) package var region: String?
  @Option(
    name: .customLong("ca-bundle"),
    help: ArgumentHelp(
      "A PEM file of certificate authorities to trust besides the system's (a private CA), kept with the remote.",
      discussion: "Else AWS_CA_BUNDLE. Verification is never turned off.", valueName: "file"),
    completion: .file()) package var caBundle: String?
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.clone(self) }
}
