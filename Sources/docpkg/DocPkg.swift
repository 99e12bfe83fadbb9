import ArgumentParser
import DocumentPackage

/// `docpkg`: inspect, edit, pack, unpack and compare document packages.
@main
struct DocPkg: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docpkg",
    abstract: "Inspect, edit, pack, unpack and compare document packages (directories shown as one file).",
    version: "0.1.0",
    subcommands: [
      Inspect.self, Cat.self, Put.self, Remove.self, Check.self, Diff.self, Pack.self, Unpack.self, Versions.self,
      Watch.self, Bookmark.self, Resolve.self,
      RemoteCommand.self, PushCommand.self, PullCommand.self, CloneCommand.self,
    ]
  )

  /// Parses the arguments and runs the command. A failure prints one line, `docpkg: error: ...`,
  /// on standard error and exits with the command's failure status (1, or 2 for `diff`); a usage error
  /// points to the command's `--help` and exits 64 (see ``ExitStatus``).
  static func main() {
    let command: ParsableCommand
    let usage = CommandLineUsage(Array(CommandLine.arguments.dropFirst()), root: Self.self)
    do {
      command = try parseAsRoot()
    } catch {
      // --help and --version are requests, not failures: ArgumentParser prints them.
      if exitCode(for: error) == .success { exit(withError: error) }
      StandardError.write(usage.line(for: message(for: error)))
      terminate(ExitStatus.usage)
    }
    do {
      var command = command
      try command.run()
      VersionsSettle.startForSavedPackages()
      StandardOutput.shared.flush()
    } catch let exit as ExitCode {
      StandardOutput.shared.flush()
      terminate(exit.rawValue)
    } catch {
      StandardOutput.shared.flush()
      if let cleanExit = error as? CleanExit { Self.exit(withError: cleanExit) }
      // `docpkg SUBCOMMAND --help` parses into a help command whose run() throws a help request.
      if exitCode(for: error) == .success { Self.exit(withError: error) }
      // An option value only run() can check (such as --versions) is a usage error too.
      if error is ValidationError {
        StandardError.write(usage.line(for: message(for: error)))
        terminate(ExitStatus.usage)
      }
      reportFailure(error)
      terminate((command as? any FailureStatus).map { type(of: $0).failureStatus } ?? 1)
    }
  }
}

/// Ends the process with `status` (libc's `exit`, which `ParsableCommand.exit(withError:)` hides inside the type).
func terminate(_ status: Int32) -> Never {
  Syscalls.exitProcess(status)
}

/// A command whose failures exit with a status other than 1 (`diff` uses 1 for "different").
protocol FailureStatus {
  static var failureStatus: Int32 { get }
}

/// Prints `docpkg: error: MESSAGE` on standard error, on one line.
func reportFailure(_ error: any Error) {
  let text = String(describing: error).escapingControlCharacters
  StandardError.write("docpkg: error: \(text)\n")
}
