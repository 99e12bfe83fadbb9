import ArgumentParser
import DocumentPackage

/// The exit statuses of `docpkg`, one rule for every command.
///
/// - 0: success (and, for `diff`, "the same");
/// - 1: a failure (a missing package, an unreadable file, ...), or `diff`'s "different";
/// - 2: `diff`'s failures, as `diff(1)` documents;
/// - 64 (`EX_USAGE`, ArgumentParser's validation status): a usage error — an unknown command or option,
///   a value an option does not take; the message points to the command's `--help`.
package enum ExitStatus {
  /// A command line `docpkg` cannot run.
  package static let usage: Int32 = ExitCode.validationFailure.rawValue
}

/// Where a command line points in the command tree, for usage errors.
package struct CommandLineUsage {
  /// The subcommands named, such as `["versions", "list"]`.
  package var commandNames: [String] = []
  /// A word given where a subcommand was expected that names none, such as `bogus` in `docpkg bogus`.
  package var unknownCommand: String?
  /// Whether the line asks for help: `--help`, `-h`, or the `help` command (`docpkg help versions list`).
  package var asksForHelp = false

  /// Walks `arguments` (without the program name) down from `root` while they name subcommands.
  package init(_ arguments: [String], root: any ParsableCommand.Type) {
    var command = root
    asksForHelp = arguments.contains { $0 == "--help" || $0 == "-h" }
    for argument in arguments where !argument.hasPrefix("-") {
      let subcommands = command.configuration.subcommands
      guard !subcommands.isEmpty else { break }
      guard let next = subcommands.first(where: { $0._commandName == argument }) else {
        // `help` names the command path that follows it (`docpkg help frob` asks about `frob`).
        if argument == "help" && commandNames.isEmpty && !asksForHelp {
          asksForHelp = true
          continue
        }
        unknownCommand = argument
        break
      }
      commandNames.append(argument)
      command = next
    }
  }

  /// `(see 'docpkg pack --help')`.
  package var hint: String {
    "(see '\((["docpkg"] + commandNames + ["--help"]).joined(separator: " "))')"
  }

  /// The one line a usage error prints: `docpkg: error: MESSAGE (see 'docpkg pack --help')`.
  package func line(for message: String) -> String {
    if let unknownCommand {
      let prefix = (["docpkg"] + commandNames).joined(separator: " ")
      return "docpkg: error: unknown command '\(unknownCommand.escapingControlCharacters)' for '\(prefix)' \(hint)\n"
    }
    return "docpkg: error: \(message.escapingControlCharacters) \(hint)\n"
  }
}
