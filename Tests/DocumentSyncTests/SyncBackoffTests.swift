import Testing

@testable import DocumentSync

/// The wait between two rounds of a sync that lost (another device pushed first), in `docpkg sync` and in a watch
/// (issue 39): bounded and jittered, whatever the lost rounds took.
@Suite struct SyncBackoffTests {
  /// A device that lost many rounds waits at most 5 s before the next: the wait no longer grows with how long the
  /// lost round took (a watch on a busy remote waited up to two minutes), and devices that lost together come back
  /// apart.
  @Test func theWaitDoublesUpToFiveSecondsAtRandom() {
    for round in 1...30 {
      let waits = (0..<40).map { _ in PackageSync.syncBackoff(afterRound: round) }
      #expect(waits.allSatisfy { $0 >= .milliseconds(25) && $0 <= .seconds(5) }, "round \(round): \(waits)")
    }
    #expect((0..<40).allSatisfy { _ in PackageSync.syncBackoff(afterRound: 1) <= .milliseconds(200) })
    #expect((0..<40).allSatisfy { _ in PackageSync.syncBackoff(afterRound: 3) <= .milliseconds(800) })
    let late = Set((0..<40).map { _ in PackageSync.syncBackoff(afterRound: 8) })
    #expect(late.count > 10, "\(late)")
  }
}
