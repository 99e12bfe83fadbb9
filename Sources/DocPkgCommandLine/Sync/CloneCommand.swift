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
  @Flag(
    help: ArgumentHelp(
      "Refuse the remote unless it is encrypted (remote add --encrypt).",
      discussion: """
        A clone finds out by itself whether a remote is encrypted; with --encrypt, a remote that is not (say, one \
        a server replaced with plain objects of its own) is refused before anything is downloaded.
        """)) package var encrypt = false

  package init() {}

  package func run() throws { try Runner.clone(self) }
}
