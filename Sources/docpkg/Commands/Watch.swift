import ArgumentParser
import Dispatch
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `docpkg watch PACKAGE [--json]`: one line per change under a package, as it happens.
struct Watch: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Print the changes made to a package on disk as they happen, until interrupted.",
    discussion: """
      Prints one line per change: added, removed or modified PATH, renamed OLD -> NEW (paths inside the \
      package), packageMoved NEWPATH, packageReplaced PATH (another directory took the package's name: an \
      atomic save; the entries that differ follow), rescanned PATH (events were lost and the package was \
      listed again). A burst of changes is reported once it has been quiet for --delay milliseconds. \
      When the package is deleted, watch prints packageDeleted PATH and stops. \
      --json prints one object per line: {"kind","path","oldPath","packagePath"}.
      """
  )

  @Argument(help: "The package to watch.")
  var package: String

  @OptionGroup var output: JSONOption

  @Option(help: "Milliseconds without changes before a burst is reported.")
  var delay: Int = 25

  func validate() throws {
    guard delay >= 0 else { throw ValidationError("--delay takes a number of milliseconds, not \(delay)") }
  }

  /// One change as `--json` prints it.
  struct Line: Codable {
    var kind: String
    var path: String
    var oldPath: String?
    var packagePath: String
  }

  func run() throws {
    Syscalls.restoreTerminationSignals()
    var options = PackageMonitor.Options()
    options.delay = .milliseconds(delay)
    let monitor = try PackageMonitor(watching: FilePath(package), options: options)
    StandardError.write(
      "docpkg: watching '\(monitor.path.string.escapingControlCharacters)' (\(monitor.watchedDirectoryCount) directories)\n"
    )
    let outcome = WatchOutcome()
    let json = output.json
    Task {
      do {
        for try await event in monitor { try Self.print(event, json: json) }
      } catch { outcome.fail(error) }
      outcome.done.signal()
    }
    outcome.done.wait()
    if let error = outcome.error { throw error }
    StandardError.write("docpkg: the package was deleted, stopped watching\n")
  }

  private static func print(_ event: PackageMonitor.Event, json: Bool) throws {
    let out = StandardOutput.shared
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for change in event.changes {
      if json {
        let line = Line(
          kind: change.kind.rawValue, path: change.path, oldPath: change.oldPath, packagePath: event.packagePath)
        try encoder.encode(line).withUnsafeBytes { out.write(bytes: $0) }
        out.write("\n")
      } else {
        out.write(change.description + "\n")
      }
    }
    out.flush()
  }
}

/// How the watching task ended, handed to the command's thread.
private final class WatchOutcome: @unchecked Sendable {
  let done = DispatchSemaphore(value: 0)
  private(set) var error: (any Error)?
  func fail(_ error: any Error) { self.error = error }
}
