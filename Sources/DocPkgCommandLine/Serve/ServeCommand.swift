import ArgumentParser

/// What `docpkg serve` does once parsed: declared here, like the sync commands, so that `docpkg` lists it in its
/// help, manual and completions and hands its command line to `docpkg-sync` (which links the network stack), and
/// `docpkg-sync` runs it.
package protocol ServeCommandRunner {
  /// `docpkg serve PATH [--compare OTHER]... [--port N] [--allow-restore]`.
  static func serve(_ command: ServeCommand<Self>) throws
}

/// `docpkg serve PATH [--compare OTHER]... [--port N] [--allow-restore]`.
package struct ServeCommand<Runner: ServeCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "serve",
      abstract: "Show a package, an archive or a version in the browser: tree, previews, size map, versions.",
      discussion: """
        Serves a page on 127.0.0.1 and prints its URL, which carries a random token (every request needs it). \
        The page shows the tree (sort, filter), previews (text with line numbers, JSON and XML re-indented, \
        images, hex), a size map, the versions and what changed between two states (the current one, a \
        version, or a location given with --compare), and follows changes on disk as they happen. Nothing is written unless --allow-restore is given, and then only a restore the \
        page confirms. Runs until interrupted.
        """)
  }

  @Argument(help: "The package, an archive (zip or tar, read in place), or PACKAGE@ID.", completion: .file())
  package var path: String

  @Option(
    help: ArgumentHelp(
      "Another package, archive or PACKAGE@ID the page may compare with (repeatable); read-only.",
      valueName: "other"),
    completion: .file())
  package var compare: [String] = []

  // Unconditional: `--port -1` is a port out of range, not a missing value.
  @Option(parsing: .unconditional, help: "The port to listen on (default: a free one).")
  package var port: Int = 0

  @Flag(help: "Let the page restore a version (after a confirmation).")
  package var allowRestore = false

  package init() {}

  package func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
  }

  package func run() throws { try Runner.serve(self) }
}
