import DocPkgCommandLine
import DocumentPackage
import SystemPackage

/// The sync commands and `serve` in `docpkg`: their command line goes, unparsed, to `docpkg-sync`, the
/// executable beside `docpkg` that links the network stack, so that no other command loads it (as git hands
/// `git push` to `git-remote-https`); `docpkg-sync` parses it and reports usage errors as `docpkg` would.
/// `docpkg` declares the commands only for its help, manual and completions.
enum SyncExecutable: SyncCommandRunner, ServeCommandRunner {
  /// The helper's file name, looked for in the folder of the running `docpkg`.
  static let name = "docpkg-sync"

  /// The names of the commands the helper runs.
  static let commandNames = Set(
    [
      RemoteCommand<Self>.configuration.commandName, PushCommand<Self>.configuration.commandName,
      PullCommand<Self>.configuration.commandName, CloneCommand<Self>.configuration.commandName,
      SyncCommand<Self>.configuration.commandName,
      ServeCommand<Self>.configuration.commandName,
    ].compactMap { $0 })

  /// Runs `docpkg-sync` in this process's place if the first argument names a command it runs (a sync command,
  /// `serve`); returns otherwise. A helper that cannot run ends the process with one line naming it.
  static func handOverIfHelperCommand() {
    guard let first = CommandLine.arguments.dropFirst().first, commandNames.contains(first) else { return }
    do { try handOver() } catch {
      reportFailure(error)
      terminate(1)
    }
  }

  /// Runs `docpkg-sync` in this process's place with this process's arguments; returns only by throwing.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the helper's path if it is missing or cannot run.
  private static func handOver() throws {
    guard let executable = Syscalls.executablePath() else {
      throw PackageError(.noSuchEntry, "cannot find the folder of docpkg to run", path: name)
    }
    let helper = executable.removingLastComponent().appending(name)
    StandardOutput.shared.flush()
    let errno = Syscalls.replaceProcess(with: helper, arguments: [name] + CommandLine.arguments.dropFirst())
    throw PackageError.io(
      errno, "cannot run the network helper", path: helper.string, context: "(install it beside docpkg)")
  }

  /// Runs `docpkg-sync` with `arguments` as a child process, its output on this process's standard error, and
  /// waits for it.
  /// - Returns: Its exit status.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the helper's path if it is missing or cannot run.
  static func run(_ arguments: [String]) throws -> Int32 {
    guard let executable = Syscalls.executablePath() else {
      throw PackageError(.noSuchEntry, "cannot find the folder of docpkg to run", path: name)
    }
    let helper = executable.removingLastComponent().appending(name)
    StandardOutput.shared.flush()
    do { return try Syscalls.runAndWait(helper, arguments) } catch {
      throw PackageError.io(
        error, "cannot run the network helper", path: helper.string, context: "(install it beside docpkg)")
    }
  }

  static func clone(_ command: CloneCommand<Self>) throws { try handOver() }
  static func push(_ command: PushCommand<Self>) throws { try handOver() }
  static func pull(_ command: PullCommand<Self>) throws { try handOver() }
  static func sync(_ command: SyncCommand<Self>) throws { try handOver() }
  static func addRemote(_ command: RemoteAdd<Self>) throws { try handOver() }
  static func listRemotes(_ command: RemoteList<Self>) throws { try handOver() }
  static func removeRemote(_ command: RemoteRemove<Self>) throws { try handOver() }
  static func serve(_ command: ServeCommand<Self>) throws { try handOver() }
  static func pruneRemote(_ command: RemotePrune<Self>) throws { try handOver() }
  static func fetchVersion(_ command: RemoteFetch<Self>) throws { try handOver() }
  static func checkRemote(_ command: RemoteCheck<Self>) throws { try handOver() }
  static func changePassphrase(_ command: RemotePassphrase<Self>) throws { try handOver() }
  static func setRemote(_ command: RemoteSet<Self>) throws { try handOver() }
}
