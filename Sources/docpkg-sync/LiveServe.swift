import DocPkgCommandLine
import DocumentPackage
import DocumentSync
import PackageServer

/// `docpkg serve`'s work, on ``PackageServer``: run by `docpkg-sync`, the executable that links the network
/// stack. Prints the URL, then serves until interrupted.
enum LiveServe: ServeCommandRunner {
  static func serve(_ command: ServeCommand<Self>) throws {
    Syscalls.ignoreBrokenPipes()  // a client leaving mid-download must not end the server
    Syscalls.restoreTerminationSignals()  // runs until interrupted, whatever signals the parent blocked
    let location = try ServedLocation(command.path)
    var settings = PackageServer.Configuration(
      location: location, compared: try command.compare.map(ServedLocation.init), port: command.port,
      allowsRestore: command.allowRestore)
    // A version a pull kept with files left on the remote: they are downloaded when the page first reads it.
    // Never asked at the terminal (the server runs unattended, its terminal shows its log): an encrypted remote's
    // passphrase comes from the environment, else the page's request fails with the library's one line.
    settings.fetchVersionFiles = { package, id in
      _ = try await PackageSync.fetchVersion(id, ofPackageAt: package) { remote in
        try PackageSync(packageAt: package, remote: remote, credentials: environmentCredentials())
      }
    }
    let configuration = settings
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
