import Foundation
import TestSupport
import Testing

extension RunningProcess {
  /// `docpkg watch ARGUMENTS` in the background.
  convenience init(watch arguments: [String]) throws {
    try self.init(Shell.docpkgPath, ["watch"] + arguments)
  }

  /// What it printed, line by line.
  var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }

  /// Waits until set-up is done (watch says so on standard error).
  func started() async -> Bool { await wait { $0.standardError.contains("docpkg: watching") } }
}

@Suite("docpkg watch")
struct WatchCommandTests {
  @Test func printsOneLinePerChangeUntilThePackageIsDeleted() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/a.txt", "a\n")
    try temp.write("Doc.pkg/Data/b.txt", "b\n")
    let package = temp.appending("Doc.pkg")
    let watch = try RunningProcess(watch: [package])
    defer { watch.stop() }
    #expect(await watch.started())

    try temp.write("Doc.pkg/Data/new.txt", "new\n")
    #expect(await watch.wait { $0.lines.contains("added Data/new.txt") })
    try FileManager.default.moveItem(atPath: package + "/a.txt", toPath: package + "/renamed.txt")
    #expect(await watch.wait { $0.lines.contains("renamed a.txt -> renamed.txt") })

    try FileManager.default.removeItem(atPath: package)
    #expect(await watch.waitForExit(seconds: 10))
    #expect(watch.status == 0)
    #expect(watch.lines.last?.hasPrefix("packageDeleted ") == true)
    #expect(watch.standardError.hasSuffix("docpkg: the package was deleted, stopped watching\n"))
  }

  @Test func reportsAnotherProcessSaveAsJSON() async throws {
    struct Line: Decodable, Equatable {
      var kind: String
      var path: String
      var oldPath: String?
    }
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/a.txt", "a\n")
    try temp.write("Doc.pkg/Data/b.txt", "b\n")
    try temp.write("Doc.pkg/Data/c.txt", "c\n")
    let package = temp.appending("Doc.pkg")
    let watch = try RunningProcess(watch: [package, "--json"])
    defer { watch.stop() }
    #expect(await watch.started())
    func decoded(_ watch: RunningProcess) -> [Line] {
      watch.lines.compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    // A subdirectory's entry: `put` exchanges Data/ only.
    var result = try Shell.docpkg(["put", package, "Data/b.txt", "--versions", "none"], input: Data("put\n".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    #expect(await watch.wait { decoded($0).contains(Line(kind: "modified", path: "Data/b.txt")) })
    #expect(!decoded(watch).contains { $0.path == "Data/c.txt" || $0.path == "a.txt" })

    // A file at the root: `put` exchanges just that file.
    result = try Shell.docpkg(["put", package, "a.txt", "--versions", "none"], input: Data("put a\n".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    #expect(await watch.wait { decoded($0).contains(Line(kind: "modified", path: "a.txt")) })
    // A new entry at the root: `put` renames just that entry into the root.
    result = try Shell.docpkg(["put", package, "new.txt", "--versions", "none"], input: Data("new\n".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    #expect(await watch.wait { decoded($0).contains(Line(kind: "added", path: "new.txt")) })
    // A root entry removed: `rm` renames just that entry out of the root (the root is never listed), so the
    // package is not replaced.
    result = try Shell.docpkg(["rm", package, "new.txt", "--versions", "none"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(await watch.wait { decoded($0).contains(Line(kind: "removed", path: "new.txt")) })
    #expect(!decoded(watch).contains { $0.kind == "packageReplaced" })
    #expect(!decoded(watch).contains { $0.path == "Data/c.txt" })
    #expect(watch.lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
  }

  @Test func saysOnStartThatItUsesInotifyOnALocalFileSystem() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/Data/b.txt", "b\n")
    let watch = try RunningProcess(watch: [temp.appending("Doc.pkg")])
    defer { watch.stop() }
    #expect(await watch.started())
    #expect(watch.standardError.hasSuffix(" (2 directories, inotify)\n"), "\(watch.standardError)")
  }

  @Test func pollsWhenAskedAndReportsTheSameLines() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/a.txt", "a\n")
    try temp.write("Doc.pkg/Data/b.txt", "b\n")
    let package = temp.appending("Doc.pkg")
    let watch = try RunningProcess(watch: [package, "--poll", "--poll-interval", "100"])
    defer { watch.stop() }
    #expect(await watch.started())
    #expect(
      watch.standardError.hasSuffix(" (2 directories, polling every 100 ms: asked for)\n"), "\(watch.standardError)")

    try temp.write("Doc.pkg/Data/new.txt", "new\n")
    #expect(await watch.wait { $0.lines.contains("added Data/new.txt") })
    try temp.write("Doc.pkg/Data/b.txt", "changed\n")
    #expect(await watch.wait { $0.lines.contains("modified Data/b.txt") })
    try FileManager.default.moveItem(atPath: package + "/a.txt", toPath: package + "/renamed.txt")
    #expect(await watch.wait { $0.lines.contains("renamed a.txt -> renamed.txt") })
    try FileManager.default.removeItem(atPath: package + "/Data/new.txt")
    #expect(await watch.wait { $0.lines.contains("removed Data/new.txt") })
    try FileManager.default.removeItem(atPath: package)
    #expect(await watch.waitForExit(seconds: 10))
    #expect(watch.status == 0)
    #expect(watch.lines.last?.hasPrefix("packageDeleted ") == true)
  }

  @Test func aPollIntervalThatIsNotPositiveIsRefused() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/a.txt", "a\n")
    let result = try Shell.docpkg(["watch", temp.appending("Doc.pkg"), "--poll-interval", "0"])
    #expect(result.status != 0)
    #expect(result.standardError.contains("--poll-interval takes a positive number of milliseconds, not 0"))
  }

  @Test func aMissingPackageIsAOneLineError() throws {
    let temp = try TemporaryDirectory()
    let result = try Shell.docpkg(["watch", temp.appending("Nothing.pkg")])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("docpkg: error: cannot open package '"))
    #expect(result.standardError.split(separator: "\n").count == 1)
  }
}
