import ArgumentParser
import DocPkgCommandLine
import DocumentPackage

/// `docpkg`: inspect, edit, pack, unpack and compare document packages.
@main
struct DocPkg: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docpkg",
    abstract: "Inspect, edit, pack, unpack and compare document packages (directories shown as one file).",
    version: DocPkgVersion.current,
    subcommands: [
      Inspect.self, Cat.self, Put.self, Remove.self, Check.self, Diff.self, Pack.self, Unpack.self, Versions.self,
      Watch.self, Bookmark.self, Resolve.self,
      RemoteCommand<SyncExecutable>.self, PushCommand<SyncExecutable>.self, PullCommand<SyncExecutable>.self,
      CloneCommand<SyncExecutable>.self, SyncCommand<SyncExecutable>.self, ServeCommand<SyncExecutable>.self,
    ]
  )

  /// Parses the arguments and runs the command (see `runCommandLine(_:afterSuccess:)`). A sync command (or
  /// `serve`) is not parsed here: its command line goes to `docpkg-sync` as it is (see `SyncExecutable`). First, the
  /// process-wide settings only a program may make: `TZ` names the zone file when unset (see
  /// `LocalTime`). After a command that saved with deferred version copies, starts
  /// `docpkg versions settle` detached.
  static func main() {
    SyncExecutable.handOverIfHelperCommand()
    LocalTime.readZoneFileOnce()
    runCommandLine(Self.self) {
      if let executable = Syscalls.executablePath() { PendingSettler.shared.startDetached(executable: executable) }
    }
  }
}
