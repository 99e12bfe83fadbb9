import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 36: a watching document judges each change of a burst in the time its path's depth takes. Its own first
/// save of a file 1,000 folders deep is a burst of 1,000 new folders, the deepest 1,000 levels down, which its
/// process's one inotify instance delivers to every monitor of the process: this suite runs in a process of its
/// own (`ALONE_TEST_SUITES` in the Makefile), or the other monitor suites wait for their events behind it.
@Suite("A watching document reacts to a save 1,000 folders deep")
struct DeepSaveReactionTests {
  /// How long a watching document takes, after its first save of one file `depth` folders deep (every folder on
  /// the way new: a burst of `depth` changes, the deepest `depth` folders down), to react to that burst and then
  /// to a file another program adds.
  private func timeOfTheReactionToADeepSave(depth: Int) async throws -> Duration {
    let temp = try TemporaryDirectory()
    let path = FilePath(temp.appending("Deep.pkg"))
    let leaf = Array(repeating: "d", count: depth).joined(separator: "/") + "/leaf.txt"
    let document = try await Document(contentsOf: path, options: .createNew)
    let updates = await document.updates()
    try await document.edit { try $0.setFile(at: leaf, contents: Data("first\n".utf8)) }
    try await document.save()
    let start = ContinuousClock.now
    try temp.write("Deep.pkg/Theirs.txt", "theirs\n")
    let added = PackageMonitor.Change(.added, "Theirs.txt")
    var reported: OutsideChange?
    for await update in updates where update.outsideChange?.changes.contains(added) == true {
      reported = update.outsideChange
      break
    }
    let time = ContinuousClock.now - start
    // Its own save is not news: only the other program's file is reported.
    #expect(reported?.changes.filter { $0.path.hasPrefix("d") } == [], "\(String(describing: reported))")
    #expect(reported?.reaction == .reloaded)
    try await document.close()
    return time
  }

  @Test(.timeLimit(.minutes(6)))
  func aWatchingDocumentReactsToItsOwnSaveAThousandFoldersDeepInTheTimeItsDepthTakes() async throws {
    let shallow = try await timeOfTheReactionToADeepSave(depth: 100)
    let deep = try await timeOfTheReactionToADeepSave(depth: 1_000)
    // Linear per change, so quadratic in the depth for this burst (one change per folder): measured 0.4 s and
    // 43 s at load 30. Judging each change made a path per level of it, cubic per burst: over ten minutes.
    #expect(deep < .seconds(150), "100 deep: \(shallow), 1,000 deep: \(deep)")
  }
}
