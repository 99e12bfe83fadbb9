import ArgumentParser

/// `docpkg push PACKAGE [NAME]`.
package struct PushCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "push",
      abstract: "Upload what the remote lacks and move its head to the package's state.",
      discussion: """
        Sends only the blobs and trees the remote does not have, then moves the remote's head with a conditional \
        write: when another device pushed first, nothing is overwritten and push fails, saying to pull first. \
        Prints 'up to date' or 'pushed N blobs, M trees (B bytes)'.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.push(self) }
}
