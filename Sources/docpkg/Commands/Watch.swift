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

/// `docpkg watch PACKAGE [--json] [--delay MS] [--poll] [--poll-interval MS]`: one line per change under a
/// package, as it happens.
struct Watch: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Print the changes made to a package on disk as they happen, until interrupted.",
    discussion: """
      Prints one line per change: added, removed or modified PATH, renamed OLD -> NEW (paths inside the \
      package), packageMoved NEWPATH, packageReplaced PATH (another directory took the package's name: an \
      atomic save; the entries that differ follow), rescanned PATH (events were lost and the package was \
      listed again). A burst of changes is reported once it has been quiet for --delay milliseconds. \
      After a burst that left the package with a new unresolved conflict version (a merging save, or a pull \
      that kept one here or fetched one another device kept), watch prints conflict ID PATH... (--json: kind \
      "conflict", path the entries, oldPath the version id). \
      When the package is deleted, watch prints packageDeleted PATH and stops. \
      --json prints one object per line: {"kind","path","oldPath","packagePath"}.

      On start, watch says on standard error how it learns of changes: (inotify), or (polling every 1 s: \
      REASON) on a network or FUSE file system (sshfs, NFS, SMB/CIFS, …), where files change without \
      inotify seeing it (on the server side of a share): there it lists the package's directories every \
      --poll-interval milliseconds and compares them with what it had. --poll polls anywhere.
      """
  )

  @Argument(help: "The package to watch.")
  var package: String

  @OptionGroup var output: JSONOption

  @Option(help: "Milliseconds without changes before a burst is reported.")
  var delay: Int = 25

  @Flag(help: "Poll the package's directories even where inotify sees every change.")
  var poll = false

  @Option(help: "Milliseconds from the end of one poll to the next, where watch polls.")
  var pollInterval: Int = 1000

  func validate() throws {
    guard delay >= 0 else { throw ValidationError("--delay takes a number of milliseconds, not \(delay)") }
    guard pollInterval > 0 else {
      throw ValidationError("--poll-interval takes a positive number of milliseconds, not \(pollInterval)")
    }
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
    options.alwaysPolls = poll
    options.pollingInterval = .milliseconds(pollInterval)
    let monitor = try PackageMonitor(watching: FilePath(package), options: options)
    StandardError.write(
      "docpkg: watching '\(monitor.path.string.escapingControlCharacters)' "
        + "(\(monitor.watchedDirectoryCount) directories, \(monitor.mode))\n"
    )
    let outcome = WatchOutcome()
    let json = output.json
    let conflicts = ConflictWatch(package: FilePath(package))
    Task {
      do {
        for try await event in monitor {
          try Self.print(event, json: json)
          try conflicts.reportNew(json: json, packagePath: event.packagePath)
        }
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

/// The unresolved conflict versions watch has reported (those there when it started count as reported): after each
/// burst it prints the new ones, which a merging save or a pull (of a conflict kept on another device too) made.
private final class ConflictWatch: @unchecked Sendable {
  private let package: FilePath
  private var known: Set<Int>

  init(package: FilePath) {
    self.package = package
    known = Set(Self.unresolved(package).map(\.id))
  }

  private static func unresolved(_ package: FilePath) -> [PackageVersion] {
    (try? VersionStore(forPackageAt: package).unresolvedConflicts()) ?? []
  }

  func reportNew(json: Bool, packagePath: String) throws {
    let out = StandardOutput.shared
    for version in Self.unresolved(package) where known.insert(version.id).inserted {
      let paths = version.conflictPaths.joined(separator: " ")
      if json {
        let line = Watch.Line(kind: "conflict", path: paths, oldPath: String(version.id), packagePath: packagePath)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(line).withUnsafeBytes { out.write(bytes: $0) }
        out.write("\n")
      } else {
        out.write("conflict \(version.id) \(paths)\n")
      }
    }
    out.flush()
  }
}
