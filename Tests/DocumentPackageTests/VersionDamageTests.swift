import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 23 at the library: a record that cannot be read is a problem the store reports
/// (``VersionStore/versionProblems()``, ``VersionStore/damagedVersions(thorough:)``), never a
/// version that silently is not there, and nothing it names is removed.
@Suite("Damaged version records are reported, never dropped")
struct VersionDamageTests {
  /// A package saved `count` times with deferred copies (`Text.txt` "v1", "v2", …), not settled.
  private func deferredSaves(_ temp: TemporaryDirectory, count: Int) throws -> (String, VersionStore) {
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = true
    for index in 1...count {
      try document.root.setFile(at: "Text.txt", contents: Data("v\(index)\n".utf8))
      try document.save()
    }
    return (package, try document.versionStore())
  }

  @Test func aTruncatedRecordIsADamagedVersionNotAGap() throws {
    let temp = try TemporaryDirectory()
    let (_, store) = try deferredSaves(temp, count: 3)
    #expect(try store.versions().map(\.id) == [1, 2, 3])
    let record = store.versionsPath.appending("2")
    let whole = try Data(contentsOf: URL(fileURLWithPath: record.string))
    try whole.prefix(whole.count - 3).write(to: URL(fileURLWithPath: record.string))

    #expect(try store.versions().map(\.id) == [1, 3])
    let problems = try store.versionProblems()
    #expect(problems.map(\.id) == [2])
    #expect(problems.first?.state == .damaged)
    #expect(problems.first?.recordPath == record)
    #expect(problems.first?.reason == "it is cut short (its last line is incomplete)")
    #expect(try store.damagedVersions().map(\.id) == [2])
    #expect(throws: PackageError.self) { try store.version(2) }
    // Pruning leaves the damaged record, and every object (its objects are not known).
    let objects = try FileManager.default.subpathsOfDirectory(atPath: store.objectsPath.string).sorted()
    #expect(try store.prune(keepingLast: 0) == [1, 3])
    #expect(FileManager.default.fileExists(atPath: record.string))
    #expect(try FileManager.default.subpathsOfDirectory(atPath: store.objectsPath.string).sorted() == objects)
  }

  @Test func aDamagedPendingRecordKeepsItsReplacedFilesAndTheOthersSettle() throws {
    let temp = try TemporaryDirectory()
    let (_, store) = try deferredSaves(temp, count: 3)
    let record = store.pendingPath.appending("2")
    let old = store.pendingPath.appending("2.old")
    #expect(try String(contentsOfFile: old.string, encoding: .utf8) == "v1\n")
    try Data("docpkg-pending 1\nstart 12".utf8).write(to: URL(fileURLWithPath: record.string))

    #expect(try store.settlePendingVersions().map(\.id) == [1, 3])
    #expect(try String(contentsOfFile: old.string, encoding: .utf8) == "v1\n")
    #expect(FileManager.default.fileExists(atPath: record.string))
    let problems = try store.versionProblems()
    #expect(problems.map(\.id) == [2])
    #expect(problems.first?.state == .damaged)
    #expect(problems.first?.recordPath == record)
    #expect(problems.first?.description.hasPrefix("damaged pending version record '\(record.string)'") == true)
    #expect(try store.damagedVersions().map(\.id) == [2])
    #expect(try String(decoding: store.tree(of: 3).node(at: "Text.txt").contents(), as: UTF8.self) == "v2\n")
    // A later save and its settling leave it alone too.
    let document = try PackageFile(at: store.packagePath)
    document.defersVersionCopies = true
    try document.root.setFile(at: "Text.txt", contents: Data("v4\n".utf8))
    try document.save()
    #expect(try store.settlePendingVersions().map(\.id) == [4])
    #expect(try String(contentsOfFile: old.string, encoding: .utf8) == "v1\n")
  }

  @Test func aPendingVersionThatCannotSettleIsListedWithTheReason() throws {
    let temp = try TemporaryDirectory()
    let (_, store) = try deferredSaves(temp, count: 2)
    // Objects cannot be written: `objects` is a file.
    try FileManager.default.removeItem(atPath: store.objectsPath.string)
    try Data().write(to: URL(fileURLWithPath: store.objectsPath.string))

    #expect(try store.versions().isEmpty)
    let problems = try store.versionProblems()
    #expect(problems.map(\.id) == [1, 2])
    #expect(problems.map(\.state) == [.pending, .pending])
    #expect(problems.first?.reason.hasPrefix("cannot be settled: ") == true, "\(problems)")
    #expect(problems.first?.reason.contains("Not a directory") == true, "\(problems)")
    #expect(problems.last?.reason == "not settled: version 1 before it cannot be settled")
    #expect(problems.first?.date != nil)
    let error = #expect(throws: PackageError.self) { try store.version(1) }
    #expect(error?.description.hasPrefix("version 1 is pending in '\(store.pendingPath.string)/1'") == true)

    try FileManager.default.removeItem(atPath: store.objectsPath.string)
    #expect(try store.versions().map(\.id) == [1, 2])
    #expect(try store.versionProblems().isEmpty)
  }

  /// A settle moves a record from pending to kept while `versions list` lists the store: listed before the
  /// move among the kept ones and after it among the pending ones, the record is in neither list. It is not
  /// missing (CI: a two-writer run listed a settled version as "its record is missing").
  @Test func aRecordSettledDuringTheListingIsNotMissing() throws {
    let temp = try TemporaryDirectory()
    let (_, store) = try deferredSaves(temp, count: 3)
    let settled = try store.settlePendingVersions()
    #expect(settled.map(\.id) == [1, 2, 3])
    let records = try store.listing().records
    // As the listing saw it: versions 1 and 3 kept, 2 in neither list (it moved in between).
    let seen = records.filter { $0.version.id != 2 }
    #expect(seen.contains { $0.follows == 2 })
    #expect(store.missingRecords(seen, listed: [1, 3], recorded: 3).isEmpty)
    #expect(store.missingRecords(records.filter { $0.version.id != 3 }, listed: [1, 2], recorded: 3).isEmpty)
    // Gone for real, it is missing: the rule still finds deleted records.
    try FileManager.default.removeItem(atPath: store.versionsPath.appending("2").string)
    #expect(store.missingRecords(seen, listed: [1, 3], recorded: 3).map(\.id) == [2])
  }

  /// A prune removes versions while `versions list` lists the store: the listing read version 3's record (which
  /// follows 2) before the prune removed both. Neither is missing (CI: a two-writer run, whose saves prune, listed
  /// a pruned version as "its record is missing (version 25 was kept after it, …)"). And a removal takes the
  /// newest record first and notes every gap a record still present follows, so no listing in between
  /// sees a follower whose predecessor is gone unnoted.
  @Test func versionsPrunedDuringTheListingAreNotMissing() throws {
    let temp = try TemporaryDirectory()
    let (_, store) = try deferredSaves(temp, count: 4)
    _ = try store.settlePendingVersions()
    let before = try store.listing().records
    #expect(before.map(\.version.id) == [1, 2, 3, 4])
    #expect(try store.prune(keepingLast: 1) == [1, 2, 3])
    #expect(store.missingRecords(before, listed: [1, 2, 3, 4], recorded: 4).isEmpty)
    #expect(store.missingRecords(before.filter { $0.version.id != 2 }, listed: [1, 3, 4], recorded: 4).isEmpty)
    #expect(store.removedIDs == [3], "version 4 follows 3; the followers of 1 and 2 went with them")
    // Listed between the record removals of versions 2 and 3, in either order: nothing is missing.
    for order in [["2", "3"], ["3", "2"]] {
      let otherTemp = try TemporaryDirectory()
      let (_, other) = try deferredSaves(otherTemp, count: 3)
      _ = try other.settlePendingVersions()
      try other.noteRemoved([2, 3], followers: try other.listing().records)
      for id in order {
        try FileManager.default.removeItem(atPath: other.versionsPath.appending(id).string)
        #expect(try other.listing().problems.isEmpty, "\(order)")
      }
    }
  }
}
