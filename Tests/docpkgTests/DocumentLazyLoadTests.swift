import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// A `Document`'s lazy loads never read a newer saved state into a model of an older one (issue 12):
/// each load checks that it reads what the model recorded, and a load that meets another process's
/// save makes the document reload (or merge its unsaved changes) and run the read again. The writer
/// is a real process (`read-write-stress write`): each of its saves sets every generation file
/// (`Data/A/gen.txt`, `Data/B/gen.txt`, `Data/C/x/gen.txt`) to one new number at once.
@Suite("Document lazy loads")
struct DocumentLazyLoadTests {
  static let tool = CoordinatedReadingTests.tool

  /// Counts the runs of a closure that the document may run more than once.
  final class Runs: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    /// Counts one run and returns its number (1 for the first).
    func next() -> Int {
      lock.withLock {
        count += 1
        return count
      }
    }
    var total: Int { lock.withLock { count } }
  }

  static func generation(_ root: PackageNode, _ path: String) throws -> String {
    String(decoding: try root.node(at: path).contents(), as: UTF8.self)
  }

  @Test func aReadThatMeetsAnotherProcesssSaveRunsAgainOnTheNewStateAndNeverMixesThem() async throws {
    let temp = try TemporaryDirectory("lazy-loads")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "3"])
    let document = try await Document(contentsOf: FilePath(package))
    let runs = Runs()
    let tool = Self.tool
    let seen = try await document.read { root in
      let a = try Self.generation(root, "Data/A/gen.txt")
      if runs.next() == 1 { try Shell.run(tool, ["write", package, "1"]) }  // saves generation 1 meanwhile
      return [a, try Self.generation(root, "Data/B/gen.txt"), try Self.generation(root, "Data/C/x/gen.txt")]
    }
    #expect(seen == ["1", "1", "1"])
    #expect(runs.total == 2)
    let reaction = await document.lastOutsideChange?.reaction
    #expect(reaction == .reloaded, "\(String(describing: reaction))")
    try await document.close()
  }

  @Test func anEditThatMeetsASaveBeforeChangingAnythingRunsAgainOnTheNewState() async throws {
    let temp = try TemporaryDirectory("lazy-loads")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "3"])
    let document = try await Document(contentsOf: FilePath(package), options: .unwatched)
    let runs = Runs()
    let tool = Self.tool
    try await document.edit(named: "Note") { root in
      let a = try Self.generation(root, "Data/A/gen.txt")
      if runs.next() == 1 { try Shell.run(tool, ["write", package, "1"]) }
      try root.setFile(at: "Data/B/note.txt", contents: Data("A was \(a)".utf8))
    }
    #expect(runs.total == 2)
    try await document.save()
    #expect(try String(contentsOfFile: package + "/Data/B/note.txt", encoding: .utf8) == "A was 1")
    #expect(try String(contentsOfFile: package + "/Data/B/gen.txt", encoding: .utf8) == "1")
  }

  @Test func anEditThatChangedSomethingBeforeMeetingASaveKeepsItsChangesMergedAndSaysSo() async throws {
    let temp = try TemporaryDirectory("lazy-loads")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "3"])
    let document = try await Document(contentsOf: FilePath(package), options: .unwatched)
    let tool = Self.tool
    await #expect(throws: PackageError.self) {
      try await document.edit { root in
        try root.setFile(at: "Mine.txt", contents: Data("mine".utf8))
        _ = try Self.generation(root, "Data/A/gen.txt")
        try Shell.run(tool, ["write", package, "1"])
        _ = try Self.generation(root, "Data/B/gen.txt")
      }
    }
    let merged = await document.lastOutsideChange?.reaction
    #expect(merged == .merged(paths: []), "\(String(describing: merged))")
    let state = try await document.read { root in
      [
        try Self.generation(root, "Mine.txt"), try Self.generation(root, "Data/A/gen.txt"),
        try Self.generation(root, "Data/B/gen.txt"),
      ]
    }
    #expect(state == ["mine", "1", "1"])
    #expect(await document.hasUnsavedChanges)
  }

  /// Another process saved with versions off (no version store: no record of the roots its saves put in place),
  /// replacing the root, and a writer holds the package's lock, as that writer does between its saves. A read
  /// that meets the new root (unwatched: no monitor's report comes first) takes it for a save of the package.
  @Test func aReadMeetingARootReplacingSaveWhileAWriterHoldsTheLockTakesItForASave() async throws {
    let temp = try TemporaryDirectory("lazy-loads")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "3"])
    let document = try await Document(contentsOf: FilePath(package), options: .unwatched)
    #expect(try await document.read { try Self.generation($0, "Data/A/gen.txt") } == "0")
    try Shell.run(Self.tool, ["write", package, "2"])  // save 2 replaces the root
    let writer = try PackageLock(forPackageAt: FilePath(package))
    defer { writer.unlock() }
    let seen = try await document.read { root in
      try ["Data/C/x/gen.txt", "Data/A/gen.txt"].map { try Self.generation(root, $0) }
    }
    #expect(seen == ["2", "2"])
    #expect(await !document.state.contains(.deleted))
  }

  @Test func readsWhileAnotherProcessSavesInALoopEachShowOneGeneration() async throws {
    let temp = try TemporaryDirectory("lazy-loads")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "20"])
    let document = try await Document(contentsOf: FilePath(package))
    let writer = try RunningProcess(Self.tool, ["write", package, "30"])
    defer { writer.stop() }
    var reads = 0
    var mixed: [[String]] = []
    var failures: [String] = []
    while writer.isRunning || reads == 0 {
      reads += 1
      do {
        let seen = try await document.read { root in
          try ["Data/A/gen.txt", "Data/B/gen.txt", "Data/C/x/gen.txt"].map { try Self.generation(root, $0) }
            + ["Data/A", "Data/B"].map {
              try root.node(at: $0).sortedChildren().map(\.name).filter { $0.hasPrefix("gen-") }.joined()
            }
        }
        let numbers = Set(seen.map { $0.replacingOccurrences(of: "gen-", with: "") })
        if numbers.count != 1 { mixed.append(seen) }
      } catch {
        failures.append("\(error)")
      }
    }
    #expect(await writer.waitForExit())
    #expect(writer.standardOutput.contains("\"saves\":30,\"errors\":0"), "\(writer.standardOutput)")
    #expect(mixed.isEmpty, "\(mixed.count) of \(reads) reads mixed generations: \(mixed.prefix(3))")
    #expect(failures.isEmpty, "\(failures.count) of \(reads) reads failed: \(failures.prefix(3))")
  }
}
