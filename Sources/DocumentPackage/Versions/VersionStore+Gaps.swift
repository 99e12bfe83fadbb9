import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Telling a record deleted by another program from an id that has no record for a reason.
///
/// Ids have gaps of their own: a save killed or failed after it took its id records nothing, and a
/// removed version's record goes. So a gap is damage only where a record says a version was recorded
/// before it (``VersionRecord/follows``) and the store did not remove it: every removal first adds
/// the ids to `removed` (one id a line, written atomically), and a record names the newest record
/// present when it was written. The newest record itself is not covered: nothing follows it yet.
extension VersionStore {
  /// `removed`: the ids of the versions removed from the store.
  var removedPath: FilePath { path.appending("removed") }

  /// The ids of the versions removed from the store (``noteRemoved(_:)``).
  var removedIDs: Set<Int> {
    guard let data = try? StoreFiles.read(removedPath) else { return [] }
    return Set(String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int($0) })
  }

  /// Adds `ids` to `removed`, before their records go; only the ids a record that stays follows
  /// are kept there, so the file stays as small as the store. Under the store's lock.
  /// - Parameter kept: The records that stay.
  func noteRemoved(_ ids: [Int], keeping kept: [VersionRecord]) throws {
    let followed = Set(kept.compactMap(\.follows))
    let all = removedIDs.union(ids).intersection(followed).sorted()
    try StoreFiles.writeAtomically(
      Data(all.map { "\($0)\n" }.joined().utf8), to: removedPath, temporary: temporaryPath)
  }

  /// The newest version recorded with an id below `id` (nil: none).
  func newestRecordedID(before id: Int) -> Int? {
    ((try? StoreFiles.names(in: versionsPath)) ?? []).compactMap { Int($0) }.filter { $0 < id }.max()
  }

  /// The versions a record follows whose own record is gone, though the store never removed them.
  /// - Parameters:
  ///   - records: The records read.
  ///   - listed: The ids with a record (readable or not) or a pending record.
  func missingRecords(_ records: [VersionRecord], listed: Set<Int>) -> [VersionProblem] {
    let followed = records.compactMap { record in record.follows.map { ($0, record.version.id) } }
    guard followed.contains(where: { !listed.contains($0.0) }) else { return [] }
    let removed = removedIDs  // read after the listing: a removal notes its ids before their records go
    var problems: [Int: VersionProblem] = [:]
    for (id, follower) in followed where !listed.contains(id) && !removed.contains(id) && problems[id] == nil {
      problems[id] = VersionProblem(
        id: id, state: .damaged, date: nil, recordPath: versionsPath.appending(String(id)),
        reason: "its record is missing (version \(follower) was kept after it, and it was never removed)")
    }
    return Array(problems.values)
  }
}
