import Foundation
import SystemPackage
import Testing

@testable import DocumentPackage

/// A capture marker (``SaveIntent``) with each group a save appends: the times after the rename (outsider attack 3
/// on issue 35, F1) read back and complete the record, after the times before and ahead of an undone swap's line.
@Suite("Save intents")
struct SaveIntentTests {
  private func time(_ seconds: Int64) -> FileTime { FileTime(seconds: seconds, nanoseconds: 5) }

  private func intent() -> SaveIntent {
    var intent = SaveIntent(
      newTree: [], rootPermissions: FilePermissions(rawValue: 0o755), rootTime: time(1), changed: "d2",
      replaced: .kept, keepLast: 10)
    intent.start = time(2)
    intent.beforeSwap = SaveIntent.BeforeSwap(modification: time(3), change: time(3))
    return intent
  }

  @Test func theTimesAfterTheRenameCompleteTheRecord() throws {
    var intent = intent()
    intent.afterSwap = SaveIntent.AfterSwap(modification: time(4), change: time(4))
    let read = try #require(SaveIntent(intent.encoded()))
    #expect(read == intent)
    let after = try #require(read.record(id: 3)?.containerTimes?.after)
    #expect(after.modification == time(4) && after.change == time(4))
  }

  @Test func anUndoneSwapsLineFollowsTheTimesAfterTheRename() throws {
    var intent = intent()
    intent.afterSwap = SaveIntent.AfterSwap(modification: time(4), change: time(4))
    let undone = SaveIntent.Undone(modification: time(5), change: time(5), entry: nil)
    // As the save writes it: the marker up to the after-swap line, then the undone line appended.
    let written = intent.encoded() + intent.undoneLines(undone)
    intent.undone = undone
    #expect(SaveIntent(written) == intent)
    #expect(intent.encoded() == written)
  }

  @Test func withoutTheTimesAfterTheRecordHasNone() throws {
    let intent = intent()
    let read = try #require(SaveIntent(intent.encoded()))
    #expect(read.record(id: 3)?.containerTimes?.after == nil)
    #expect(read.record(id: 3, after: (time(6), time(6)))?.containerTimes?.after?.modification == time(6))
  }
}
