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
        Prints 'up to date' or 'pushed N blobs, M trees (B bytes)'. A push never starts a new history by itself: \
        when the remote lost its head (deleted on the server) or its head names objects the remote lacks, push \
        fails and says so; --force-new-head is the repair. With 'remote set --auto-prune on', when the remote's \
        history then holds more than twice the states a prune keeps (N, 'remote set --keep N', default 10), the \
        push prunes it to N as 'remote prune' does and prints 'pruned: kept N states (M objects), removed R \
        objects'; when another device is pushing or pruning, that prune is skipped, saying so on standard error, \
        and the push still succeeds.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Flag(
    name: .customLong("force-new-head"),
    help: ArgumentHelp(
      "Replace a missing or broken remote head with the package's state.",
      discussion:
        "Uploads every object of the package's state the remote lacks (found by listing it), then writes the head. Refused when the remote's head is whole."
    )) package var forceNewHead = false
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.push(self) }
}
