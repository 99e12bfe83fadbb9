import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Sync: pull, then push, again until the push lands.
//
// A push is refused when another device moved the head since this package last took it (its conditional write
// fails, or it finds a head it has not pulled). `sync` then waits a little and does it again: pull (a merge, or a
// conflict version for entries both sides changed, as a pull always does), push. Many devices syncing at once
// each land after a few rounds; the waits grow (exponential backoff: 0.2, 0.4, 0.8, … s) up to a bound (5 s),
// whatever the rounds took, and each is drawn at random between an eighth and all of that (jitter), so that the
// devices that lost one round do not all come back together. After `maximumAttempts` rounds it gives up, said as
// such; nothing is lost then (the package keeps what it pulled, the next sync pushes it).

extension PackageSync {
  /// What a sync did.
  public struct SyncResult: Sendable, Hashable {
    /// What each round's pull did, in order (one per attempt).
    public var pulls: [PullResult]
    /// What the push that landed did.
    public var pushed: PushResult
    /// How many rounds of pull and push it took (1 when no other device pushed in between).
    public var attempts: Int { pulls.count }
    /// Whether neither side had anything new.
    public var isUpToDate: Bool {
      pushed == .upToDate && pulls.allSatisfy { $0 == .upToDate || $0 == .remoteEmpty }
    }
    /// The conflict versions its pulls kept (entries both sides changed), with those entries.
    public var conflicts: [(version: Int, paths: [String])] {
      pulls.compactMap { pull -> (version: Int, paths: [String])? in
        guard case .conflict(let version, let paths) = pull else { return nil }
        return (version, paths)
      }
    }

    /// A result.
    public init(pulls: [PullResult], pushed: PushResult) {
      self.pulls = pulls
      self.pushed = pushed
    }
  }

  /// How many rounds ``sync(maximumAttempts:progress:)`` makes by default.
  public static let defaultSyncAttempts = 8

  /// Pulls, then pushes, again after a growing random wait while another device pushed in between, until the push
  /// lands or `maximumAttempts` rounds were made. Conflicts become conflict versions, as with ``pull(acceptingRollback:progress:)``.
  /// The whole runs within ``SyncTimeouts/total``.
  /// - Parameters:
  ///   - maximumAttempts: The most rounds of pull and push (at least 1).
  ///   - progress: Called as objects move.
  /// - Returns: What the pulls and the push that landed did.
  /// - Throws: ``SyncError`` with code `preconditionFailed` when other devices pushed first in every round (nothing
  ///   is lost: the package keeps what it pulled); what ``pull(acceptingRollback:progress:)`` and
  ///   ``push(forcingNewHead:progress:)`` throw otherwise.
  @discardableResult
  public func sync(
    maximumAttempts: Int = PackageSync.defaultSyncAttempts, progress: SyncProgress.Handler? = nil
  ) async throws -> SyncResult {
    try await withinDeadline("sync") {
      try await self.syncNow(maximumAttempts: max(1, maximumAttempts), progress: progress)
    }
  }

  private func syncNow(maximumAttempts: Int, progress: SyncProgress.Handler?) async throws -> SyncResult {
    var pulls: [PullResult] = []
    while true {
      pulls.append(try await pullNow(acceptingRollback: false, progress: progress))
      do {
        return SyncResult(pulls: pulls, pushed: try await pushNow(forcingNewHead: false, progress: progress))
      } catch let error as SyncError where error.code == .preconditionFailed {
        guard pulls.count < maximumAttempts else {
          throw SyncError(
            .preconditionFailed,
            "other devices pushed first in each of \(pulls.count) rounds of pull and push; what was pulled is kept, run the sync again; remote head",
            key: headKey)
        }
        let wait = Self.syncBackoff(afterRound: pulls.count)
        do { try await Task.sleep(for: wait) } catch {
          throw SyncError(.cancelled, "sync cancelled", key: headKey)
        }
      }
    }
  }

  /// The longest wait between two rounds, however many rounds were lost and however long they took.
  static let maximumSyncBackoff: Duration = .seconds(5)

  /// The wait after round `round` (1 for the first) lost: 0.2 s doubled each round, at most
  /// ``maximumSyncBackoff``, drawn between an eighth and all of it.
  static func syncBackoff(afterRound round: Int) -> Duration {
    let ceiling = min(200 << min(10, max(0, round - 1)), Int(maximumSyncBackoff.components.seconds) * 1000)
    return .milliseconds(Int.random(in: ceiling / 8...ceiling))
  }
}
