import ArgumentParser

/// `docpkg sync PACKAGE [NAME]`.
package struct SyncCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "sync",
      abstract: "Pull, merge and push, again until the push lands (other devices pushing at the same time).",
      discussion: """
        Pulls (as 'docpkg pull': a fast-forward, a merge, or a conflict version for entries both sides changed), \
        then pushes; when another device pushed in between, waits a little (0.1 s doubled each round up to \
        3.2 s, at random between half and all of it) and does both again, at most --attempts times. Prints one \
        line: 'up to date', or what was pulled and pushed and after how many rounds; then, as 'docpkg pull', one \
        line 'unresolved conflict ID PATH...' per unresolved conflict version. Fails, keeping what it pulled, when \
        other devices pushed first in every round.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Option(help: "The most rounds of pull and push.") package var attempts = 8
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func validate() throws {
    guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
  }

  package func run() throws { try Runner.sync(self) }
}
