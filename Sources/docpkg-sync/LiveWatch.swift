import DocPkgCommandLine
import DocumentPackage
import DocumentSync
import SystemPackage

/// `docpkg sync --watch`: ``PackageSync/watch(options:)``, a line per event, until interrupted.
extension LiveSync {
  static func watch(_ command: SyncCommand<Self>, sync: PackageSync) throws {
    Syscalls.restoreTerminationSignals()  // runs until interrupted, whatever signals the parent blocked
    var options = PackageSync.WatchOptions()
    options.pollInterval = .milliseconds(command.pollInterval)
    options.debounce = .milliseconds(command.debounce)
    options.maximumAttempts = command.attempts
    let package = command.package
    StandardError.write(
      "docpkg: watching '\(package.escapingControlCharacters)' with remote '\(command.name.escapingControlCharacters)' (its head polled every \(command.pollInterval) ms); Ctrl-C stops\n"
    )
    try runBlocking(endingBySignal: false) { [options] in
      // Written by this task alone; the command's thread only waits.
      let out = StandardOutput.shared
      for try await event in sync.watch(options: options) {
        switch event {
        case .synced(let result):
          out.write(words(for: result) + "\n")
          reportAutoPrune(of: sync)
        case .conflict(let version, let paths):
          out.write("conflict \(version) \(paths.joined(separator: " "))\n")
        case .unreachable(let error):
          out.write("unreachable: \(String(describing: error).escapingControlCharacters) (trying again)\n")
        case .reachable:
          out.write("reachable again\n")
        case .notLanded(let error):
          out.write("not landed: \(String(describing: error).escapingControlCharacters) (trying again)\n")
        }
        out.flush()
      }
    }
    StandardError.write("docpkg: stopped watching\n")
  }
}
