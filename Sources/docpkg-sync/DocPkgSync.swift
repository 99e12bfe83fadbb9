import ArgumentParser
import DocPkgCommandLine

/// `docpkg-sync`: the sync commands of `docpkg` (`remote`, `push`, `pull`, `clone`, `sync`) and `serve`, in an
/// executable of their own so that every other `docpkg` command starts without loading the HTTP stack
/// (async-http-client, SwiftNIO, Foundation). `docpkg` finds it beside itself and hands it the
/// command line (as git runs `git-remote-*`); it names itself `docpkg` in every message.
@main
struct DocPkgSync: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docpkg",
    abstract: "The sync commands and serve of docpkg (run by docpkg: use 'docpkg push', 'docpkg serve', ...).",
    version: DocPkgVersion.current,
    subcommands: [
      RemoteCommand<LiveSync>.self, PushCommand<LiveSync>.self, PullCommand<LiveSync>.self,
      CloneCommand<LiveSync>.self, SyncCommand<LiveSync>.self, ServeCommand<LiveServe>.self,
    ]
  )

  static func main() { runCommandLine(Self.self) }
}
