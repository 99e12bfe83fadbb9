import ArgumentParser

/// `docpkg sync PACKAGE [NAME] [--watch]`.
package struct SyncCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "sync",
      abstract: "Pull, merge and push, again until the push lands (other devices pushing at the same time).",
      discussion: """
        Pulls (as 'docpkg pull': a fast-forward, a merge, or a conflict version for entries both sides changed), \
        then pushes; when another device pushed in between, waits a little (0.2 s doubled each round up to \
        5 s, at random between an eighth and all of it) and does both again, at most --attempts times. Prints one \
        line: 'up to date', or what was pulled and pushed and after how many rounds; then, as 'docpkg pull', one \
        line 'unresolved conflict ID PATH...' per unresolved conflict version. Fails, keeping what it pulled, when \
        other devices pushed first in every round.

        With --watch, keeps running until interrupted (Ctrl-C, SIGTERM): syncs at start, then after every save to \
        the package (by any program; --debounce milliseconds after it, later saves joining in), and whenever \
        another device moved the remote's head, which it asks every --poll-interval milliseconds with a \
        conditional GET (answered with no body while nothing changed). Prints a line per sync that changed \
        something ('synced: ...'), one 'conflict ID PATH...' per conflict version as it appears, \
        'unreachable: ERROR' once when the remote cannot be reached (it keeps trying, with the same backoff) and \
        'reachable again' once when a sync lands after that. Ends with status 0 when interrupted, non-zero on a \
        failure that trying again would meet again (a rolled-back head, a wrong passphrase, a deleted package).
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Option(help: "The most rounds of pull and push.") package var attempts = 8
  @Flag(help: "Keep running: sync after every save and whenever the remote's head moves, until interrupted.")
  package var watch = false
  @Option(
    name: .customLong("poll-interval"),
    help: "With --watch, milliseconds between two polls of the remote's head (1000).")
  package var pollIntervalOption: Int?
  @Option(name: .customLong("debounce"), help: "With --watch, milliseconds from a save to the sync it starts (100).")
  package var debounceOption: Int?
  @OptionGroup package var quietOption: QuietOption

  /// Milliseconds between two polls of the remote's head by a watch.
  package var pollInterval: Int { pollIntervalOption ?? 1000 }
  /// Milliseconds from a save to the sync it starts, in a watch.
  package var debounce: Int { debounceOption ?? 100 }

  package init() {}

  package func validate() throws {
    guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
    // Taken without --watch, they would be ignored: a one-off sync neither polls nor waits for saves.
    for (given, flag) in [(pollIntervalOption, "--poll-interval"), (debounceOption, "--debounce")]
    where given != nil && !watch {
      throw ValidationError("\(flag) applies only with --watch")
    }
    guard pollInterval >= 10 else {
      throw ValidationError("--poll-interval takes at least 10 milliseconds, not \(pollInterval)")
    }
    guard debounce >= 0 else { throw ValidationError("--debounce takes a number of milliseconds, not \(debounce)") }
  }

  package func run() throws { try Runner.sync(self) }
}
