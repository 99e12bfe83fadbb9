import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// What a document names when its `saveMerging()` takes in another program's change (issue 36).
@Suite struct MergedChangeNamingTests {
  /// Outsider attack on issue 36: an app's `saveMerging()` that met another program's save in progress (a writer
  /// holding the package's lock, as `docpkg put` does from its load to its save) reported that writer's change as
  /// `rescanned`, refresh everything: the document looked for outside changes before its save had the lock, so the
  /// change the merge then took in was never named. It names the entry the other program added.
  @Test func aWriterThatSaveMergingWaitedForIsNamedNotRescanned() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/a.txt", "a\n")
    let path = temp.appending("Doc.pkg")
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.edit { try $0.setFile(at: "Mine.txt", contents: Data("mine\n".utf8)) }
    let ready = temp.appending("ready")
    let script = "touch '\(ready)'; sleep 1; printf 'theirs\\n' > '\(path)/Theirs.txt'"
    let writer = try RunningProcess(
      "/usr/bin/flock", [temp.appending(".Doc.pkg.docpkg-lock"), "/bin/sh", "-c", script])
    #expect(await eventually { FileManager.default.fileExists(atPath: ready) })

    #expect(try await document.saveMerging() == .merged(paths: []))
    let change = try #require(await document.lastOutsideChange, "the change merged in was not reported")
    #expect(change.changes == [PackageMonitor.Change(.added, "Theirs.txt")], "\(change.changes)")
    #expect(change.reaction == .merged(paths: []))
    #expect(try String(contentsOfFile: path + "/Mine.txt", encoding: .utf8) == "mine\n")
    #expect(try String(contentsOfFile: path + "/Theirs.txt", encoding: .utf8) == "theirs\n")
    _ = await writer.waitForExit()
    try await document.close()
  }

  /// Outsider re-attack on issue 36: a file another program removed, which `saveMerging()` then took in, was named
  /// twice in the one update (`["removed Gone.txt", "removed Gone.txt"]`): found gone itself, and missing from its
  /// folder. Each change is named once.
  @Test func aRemovalSaveMergingTookInIsNamedOnce() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/a.txt", "a\n")
    try temp.write("Doc.pkg/Gone.txt", "gone\n")
    let path = temp.appending("Doc.pkg")
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    #expect(try await document.read { try $0.sortedChildren().map(\.name) } == ["Gone.txt", "a.txt"])
    try await document.edit { try $0.setFile(at: "Mine.txt", contents: Data("mine\n".utf8)) }
    try Shell.run("rm", [path + "/Gone.txt"])

    #expect(try await document.saveMerging() == .merged(paths: []))
    let change = try #require(await document.lastOutsideChange, "the removal merged in was not reported")
    #expect(change.changes == [PackageMonitor.Change(.removed, "Gone.txt")], "\(change.changes)")
    #expect(try await document.read { try $0.sortedChildren().map(\.name) } == ["Mine.txt", "a.txt"])
    try await document.close()
  }
}
