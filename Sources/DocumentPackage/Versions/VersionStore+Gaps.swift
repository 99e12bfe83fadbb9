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
/// present when it was written. The newest record has no follower yet: `recorded` names the highest id whose
/// record was written (after the record is durable), so a newest record deleted is found too.
extension VersionStore {
  /// `recorded`: the highest id whose record (kept or pending) was written.
  var recordedPath: FilePath { path.appending("recorded") }

  /// The highest id whose record was written, by `recorded` (nil: none, or a store from before it existed).
  var lastRecordedID: Int? {
    (try? StoreFiles.read(recordedPath)).flatMap {
      String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
    }
  }

  /// Notes in `recorded` that the record of `id` was written (it is durable), unless a higher id is noted.
  /// Best effort: a note lost only leaves a deleted newest record unnoticed, never a record flagged wrongly.
  func noteRecorded(_ id: Int) {
    guard id > lastRecordedID ?? 0 else { return }
    try? StoreFiles.writeAtomically(Data("\(id)\n".utf8), to: recordedPath, temporary: temporaryPath)
  }

  /// `removed`: the ids of the versions removed from the store.
  var removedPath: FilePath { path.appending("removed") }

  /// The ids of the versions removed from the store (``noteRemoved(_:followers:)``).
  var removedIDs: Set<Int> {
    guard let data = try? StoreFiles.read(removedPath) else { return [] }
    return Set(String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int($0) })
  }

  /// Adds `ids` to `removed`; only the ids a record of `followers` follows are kept there, so the
  /// file stays as small as the store. Under the store's lock, twice for a removal: before the
  /// records go with every record as a follower (a listing meanwhile may still read a doomed record
  /// that follows a removed one), and after, with the records that stay.
  /// - Parameter followers: The records whose gaps must stay explained.
  func noteRemoved(_ ids: [Int], followers: [VersionRecord]) throws {
    var followed = Set(followers.compactMap(\.follows))
    if let recorded = lastRecordedID { followed.insert(recorded) }  // nothing follows the newest: `recorded` does
    let all = removedIDs.union(ids).intersection(followed).sorted()
    try StoreFiles.writeAtomically(
      Data(all.map { "\($0)\n" }.joined().utf8), to: removedPath, temporary: temporaryPath)
  }

  /// The newest version recorded with an id below `id` (nil: none).
  func newestRecordedID(before id: Int) -> Int? {
    ((try? StoreFiles.names(in: versionsPath)) ?? []).compactMap { Int($0) }.filter { $0 < id }.max()
  }

  /// The versions a record follows, or `recorded` names, whose own record is gone, though the store never
  /// removed them.
  /// - Parameters:
  ///   - records: The records read.
  ///   - listed: The ids with a record (readable or not) or a pending record.
  ///   - recorded: ``lastRecordedID``, read before the listing (a record noted after it may not be listed).
  func missingRecords(_ records: [VersionRecord], listed: Set<Int>, recorded: Int?) -> [VersionProblem] {
    // A pending record settled during the listing was in neither list (the versions were listed before it
    // moved there, the pending ones after): each id not listed is looked for again.
    let gone = { (id: Int) in !listed.contains(id) && !self.recordPresent(id) }
    let followed = records.compactMap { record in record.follows.map { ($0, record.version.id) } }.filter { gone($0.0) }
    let newestGone = recorded.map(gone) ?? false
    guard newestGone || !followed.isEmpty else { return [] }
    let removed = removedIDs  // read after the listing: a removal notes its ids before their records go
    var problems: [Int: VersionProblem] = [:]
    if newestGone, let id = recorded, !removed.contains(id) {
      problems[id] = VersionProblem(
        id: id, state: .damaged, date: nil, recordPath: versionsPath.appending(String(id)),
        reason: "its record is missing (it was recorded, as the newest version, and never removed)")
    }
    // A follower read before a removal may be gone with it since: only one still present names a gap
    // (`removed` keeps a gap's id until its followers are gone).
    for (id, follower) in followed where !removed.contains(id) && problems[id] == nil && recordPresent(follower) {
      problems[id] = VersionProblem(
        id: id, state: .damaged, date: nil, recordPath: versionsPath.appending(String(id)),
        reason: "its record is missing (version \(follower) was kept after it, and it was never removed)")
    }
    return Array(problems.values)
  }

  /// Whether `id` has a record now, pending or kept (looked for in that order: a settle moves it from
  /// pending to kept). An error looking counts as present: never a record flagged wrongly.
  func recordPresent(_ id: Int) -> Bool {
    ((try? Syscalls.exists(pendingPath.appending(String(id)))) ?? true)
      || ((try? Syscalls.exists(versionsPath.appending(String(id)))) ?? true)
  }
}
