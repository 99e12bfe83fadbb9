import ArgumentParser
import DocumentPackage

/// Parses the arguments as `Root`'s command line and runs the command: what `docpkg` and
/// `docpkg-sync` do in `main`. A failure prints one line, `docpkg: error: ...`, on standard error and
/// exits with the command's failure status (1, or 2 for `diff`); a usage error points to the
/// command's `--help` and exits 64 (see ``ExitStatus``). `afterSuccess` runs after a command that
/// succeeded, before the output is flushed.
package func runCommandLine<Root: ParsableCommand>(_ root: Root.Type, afterSuccess: () -> Void = {}) {
  let command: ParsableCommand
  let arguments = Array(CommandLine.arguments.dropFirst())
  let usage = CommandLineUsage(arguments, root: Root.self)
  // No command at all is a usage error, as for git: the help, on standard error, and a failure status.
  if arguments.isEmpty {
    StandardError.write(Root.helpMessage() + "\n")
    terminate(ExitStatus.usage)
  }
  // A command that does not exist is an error when help is asked about it too (`docpkg frobnicate --help`,
  // `docpkg help frobnicate`, which ArgumentParser answers with the parent's help), as git and swift say.
  // (Without help the parse fails and says so below.)
  if usage.unknownCommand != nil, usage.asksForHelp {
    StandardError.write(usage.line(for: ""))
    terminate(ExitStatus.usage)
  }
  do {
    command = try Root.parseAsRoot()
  } catch {
    // --help and --version are requests, not failures: ArgumentParser prints them.
    if Root.exitCode(for: error) == .success { Root.exit(withError: error) }
    StandardError.write(usage.line(for: Root.message(for: error)))
    terminate(ExitStatus.usage)
  }
  do {
    var command = command
    try command.run()
    afterSuccess()
    StandardOutput.shared.flush()
  } catch let exit as ExitCode {
    StandardOutput.shared.flush()
    terminate(exit.rawValue)
  } catch {
    StandardOutput.shared.flush()
    if let cleanExit = error as? CleanExit { Root.exit(withError: cleanExit) }
    // `docpkg SUBCOMMAND --help` parses into a help command whose run() throws a help request.
    if Root.exitCode(for: error) == .success { Root.exit(withError: error) }
    // An option value only run() can check (such as --versions) is a usage error too.
    if error is ValidationError {
      StandardError.write(usage.line(for: Root.message(for: error)))
      terminate(ExitStatus.usage)
    }
    reportFailure(error)
    terminate((command as? any FailureStatus).map { type(of: $0).failureStatus } ?? 1)
  }
}

/// Ends the process with `status` (libc's `exit`, which `ParsableCommand.exit(withError:)` hides inside the type).
package func terminate(_ status: Int32) -> Never {
  Syscalls.exitProcess(status)
}

/// A command whose failures exit with a status other than 1 (`diff` uses 1 for "different").
package protocol FailureStatus {
  /// The exit status of a failure.
  static var failureStatus: Int32 { get }
}

/// Prints `docpkg: error: MESSAGE` on standard error, on one line.
package func reportFailure(_ error: any Error) {
  let text = String(describing: error).escapingControlCharacters
  StandardError.write("docpkg: error: \(text)\n")
}
