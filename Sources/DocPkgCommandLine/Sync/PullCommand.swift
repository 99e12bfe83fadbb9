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
        'docpkg versions resolve'). Downloaded blobs are checked against their SHA-256. Conflict versions are \
        pushed with the state, so every device sees them: after the result, one line 'unresolved conflict ID \
        PATH...' per unresolved conflict version the package has (kept by this pull or an earlier one, here or \
        on another device, or brought by the clone); resolving them ('docpkg versions resolve') on any device \
        clears them on every device after its next push and their next pull. A head older than the one this \
        device took last (put back on the server) is refused, changing nothing, unless --accept-rollback.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Flag(help: "Take the remote's head even if it is older than the one this device took last (put back on the server).")
  package var acceptRollback = false
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.pull(self) }
}
