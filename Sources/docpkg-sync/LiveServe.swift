import DocPkgCommandLine
import DocumentPackage
import PackageServer

/// `docpkg serve`'s work, on ``PackageServer``: run by `docpkg-sync`, the executable that links the network
/// stack. Prints the URL, then serves until interrupted.
enum LiveServe: ServeCommandRunner {
  static func serve(_ command: ServeCommand<Self>) throws {
    Syscalls.ignoreBrokenPipes()  // a client leaving mid-download must not end the server
    Syscalls.restoreTerminationSignals()  // runs until interrupted, whatever signals the parent blocked
    let location = try ServedLocation(command.path)
    let configuration = PackageServer.Configuration(
      location: location, compared: try command.compare.map(ServedLocation.init), port: command.port,
      allowsRestore: command.allowRestore)
    try runBlocking {
      let server = try await PackageServer(configuration)
      StandardOutput.shared.write("serving \(location.displayName) at \(server.url)\n")
      StandardOutput.shared.flush()
      // A termination signal cancels this task (see `runBlocking`): stop serving, and the process ends by it.
      try await withTaskCancellationHandler {
        try await server.waitUntilClosed()
      } onCancel: {
        Task { await server.stop() }
      }
    }
  }
}
