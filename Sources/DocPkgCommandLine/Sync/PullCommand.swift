import ArgumentParser

/// `docpkg pull PACKAGE [NAME]`.
package struct PullCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "pull",
      abstract: "Bring the package to the remote's state with one atomic save.",
      discussion: """
        Prints 'up to date', 'fast-forward' (no local changes since the last sync), 'merged' (both sides changed \
        different entries; push next), or 'conflict ID PATH...' (both changed the same entries: the package's \
        state is kept as the unresolved conflict version ID, the entries take the remote's side; see \
        'docpkg versions resolve'). Downloaded blobs are checked against their SHA-256.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.pull(self) }
}
