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
  @OptionGroup package var server: RemoteServerOptions
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.clone(self) }
}
