import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A directory replaced by a changed copy, its old copy removed in the same burst (what a save
/// that exchanges a subtree does, and `docpkg pull`): the changed file is reported.
@Suite("Package monitor: replaced directories")
struct ReplacedDirectoryTests {
  @Test func aDirectoryReplacedAndItsOldCopyRemovedInOneBurstReportsTheChangedFile() async throws {
    let temp = try TemporaryDirectory("monitor-replaced")
    let package = try makeWatchedPackage(in: temp)
    // The monitor compares no burst before the script is done, so that it finds the new copy in
    // place whichever burst the first `mv` fell in (under load the two moves can come in two
    // bursts, and a comparison between them would rightly see the folder go and come back).
    let gate = ComparisonGate()
    var options = PackageMonitor.Options()
    options.beforeComparing = { gate.pass() }
    let monitor = try PackageMonitor(watching: FilePath(package), options: options)
    let events = EventCollector(monitor)
    defer {
      gate.open()
      monitor.stop()
    }
    // Hard links for the unchanged files, as a save's. The old copy's watch still names `Data` while its files are deleted: those deletions come in
    // the same burst as the replacement, under the new directory's paths.
    let script = """
      cp -al "$1/Data" "$1.new" && rm "$1.new/b.txt" && echo changed > "$1.new/b.txt" && mv "$1/Data" "$1.old" \
        && mv "$1.new" "$1/Data" && rm -rf "$1.old"
      """
    try Shell.run("sh", ["-c", script, "sh", package])
    gate.open()
    #expect(await events.wait(for: .modified, "Data/b.txt"), "\(events.changes)")
    #expect(!events.changes.contains { $0.path == "Data/Deep/c.txt" }, "\(events.changes)")
  }
}
