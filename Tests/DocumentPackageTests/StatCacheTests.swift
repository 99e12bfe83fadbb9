import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// What a push reads after a save: the version store's stat cache (`hashes`), which sync's scans share, is not
/// lost when the first save makes the store's versions, when a pending version settles, or when the package
/// moves, so the scan after a change to one file reads that file only (``PackageScan/hashedFiles``); and
/// listing the conflict versions (every push and pull does) settles no pending version, which would copy the
/// whole package into the store on the push's path (issue 40).
@Suite("the stat cache across saves")
struct StatCacheTests {
  private func scan(_ package: String) throws -> PackageScan {
    try VersionStore.scan(packageAt: FilePath(package), lockHeld: false)
  }

  private func save(_ package: String, _ path: String, _ text: String) throws {
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = true  // what `docpkg put` does
    try document.root.setFile(at: path, contents: Data(text.utf8))
    try document.save()
  }

  @Test func listingTheConflictsAfterTheFirstSaveCopiesNothing() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    #expect(try scan(package).hashedFiles == 6)  // the first push
    try save(package, "Pages/p1/text.txt", "ONE\n")
    // What every push and pull reads besides the scan: settling the pending version here would copy (read)
    // every file of the package into the store, on the push's path.
    #expect(try VersionStore.conflictVersions(ofPackageAt: FilePath(package)).isEmpty)
    #expect(try VersionStore(forPackageAt: FilePath(package)).unresolvedConflicts().isEmpty)
    let store = try VersionStore(forPackageAt: FilePath(package))
    #expect(store.hasPendingVersions)
    #expect(try FileManager.default.subpathsOfDirectory(atPath: store.objectsPath.string).isEmpty)
    #expect(try scan(package).hashedFiles == 1)
    // Left to the settle the save starts, which keeps the previous state whole.
    #expect(try store.settlePendingVersions().map(\.id) == [1])
    #expect(String(decoding: try store.tree(of: 1).node(at: "Pages/p1/text.txt").contents(), as: UTF8.self) == "one\n")
  }

  @Test func thePushAfterTheFirstSaveReadsOnlyTheChangedFile() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    #expect(try scan(package).hashedFiles == 6)  // the first push: every file
    try save(package, "Pages/p1/text.txt", "ONE\n")
    #expect(try scan(package).hashedFiles == 1)
    try save(package, "Pages/p2/text.txt", "TWO\n")
    #expect(try scan(package).hashedFiles == 1)
  }

  @Test func thePushAfterTheFirstVersionSettledReadsOnlyTheChangedFile() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    #expect(try scan(package).hashedFiles == 6)
    try save(package, "Text.txt", "changed\n")
    #expect(try VersionStore(forPackageAt: FilePath(package)).settlePendingVersions().map(\.id) == [1])
    #expect(try scan(package).hashedFiles == 1)
  }

  @Test func theFirstSaveWithVersionsCopiedAtOnceKeepsTheCache() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    #expect(try scan(package).hashedFiles == 6)
    let document = try PackageFile(at: FilePath(package))
    try document.root.setFile(at: "Text.txt", contents: Data("changed\n".utf8))
    try document.save()
    #expect(try scan(package).hashedFiles == 1)
  }

  @Test func aMovedPackageTakesItsCacheAlong() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    #expect(try scan(package).hashedFiles == 6)
    try save(package, "Text.txt", "changed\n")
    let moved = temp.appending("Moved.pkg")
    try FileManager.default.moveItem(atPath: package, toPath: moved)
    #expect(try scan(moved).hashedFiles == 1)
  }

  /// Issue 35: the cache compares the change time, which a save's own hard links move (a save that changes two
  /// root entries rebuilds the whole tree, linking every unchanged file into it); those links must not make the
  /// next push or settle read every file again.
  @Test(arguments: [false, true])
  func thePushAfterASaveThatRelinkedEveryFileReadsOnlyTheChangedFiles(settled: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    #expect(try scan(package).hashedFiles == 6)
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = true
    try document.root.setFile(at: "Text.txt", contents: Data("changed\n".utf8))
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("ONE\n".utf8))
    try document.save()
    if settled {
      #expect(try VersionStore(forPackageAt: FilePath(package)).settlePendingVersions().map(\.id) == [1])
    }
    #expect(try scan(package).hashedFiles == 2)
  }
}
