import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Saves that keep the previous state as a pending version (``PackageFile/defersVersionCopies``)
/// and copy it into the store later: the version is the same as with an immediate copy, and a
/// write in place during the window is named by the version, never kept as the version's bytes.
@Suite("Versions with deferred copies")
struct DeferredVersionTests {
  private func text(_ node: PackageNode, _ path: String) throws -> String {
    String(decoding: try node.node(at: path).contents(), as: UTF8.self)
  }

  private func deferredDocument(_ package: String) throws -> PackageFile {
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = true
    return document
  }

  @Test func aSaveLeavesAPendingVersionThatSettlesToThePreviousState() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("ONE\n".utf8))
    try document.save()
    let store = try document.versionStore()
    #expect(store.hasPendingVersions)
    // Nothing was copied yet: the store holds the replaced subtree, not the package.
    #expect(try FileManager.default.subpathsOfDirectory(atPath: store.objectsPath.string).isEmpty)
    #expect(try store.settlePendingVersions().map(\.id) == [1])
    #expect(!store.hasPendingVersions)
    let version = try store.tree(of: 1)
    #expect(try text(version, "Pages/p1/text.txt") == "one\n")
    #expect(try text(version, "Pages/p2/text.txt") == "two\n")
    #expect(try text(version, "Text.txt") == "hello\n")
    #expect(try version.node(at: "Pages/link").symbolicLinkDestination == "../Index.json")
    #expect(try store.versions().map(\.unkeptPaths) == [[]])
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    // Settled: the store's own copies, so a write in place now leaves the version alone.
    try Shell.run("/bin/sh", ["-c", "echo more >> \"$1\"", "sh", package + "/Text.txt"])
    #expect(try text(store.tree(of: 1), "Text.txt") == "hello\n")
  }

  /// A removal killed right after it renamed the file out of its folder (`docpkg rm`, versions
  /// deferred): its capture marker says it built nothing, so recovery takes the entry left at the
  /// temporary name for the removed one and hands it to the store, and the version holds it.
  @Test func aRemovalKilledAfterItsRenameLeavesTheFileToItsVersion() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let path = FilePath(package)
    let names = try SiblingNames(of: path)
    let keeping = VersionKeeping(packagePath: path, policy: .keepAll, defersCopies: true, appHook: nil)
    try keeping.willReplace(changing: "Pages/p1/text.txt", adding: false, removing: true)
    keeping.willSwap(containerBefore: try Syscalls.statusNoFollow(path.appending("Pages/p1")))
    try FileManager.default.moveItem(
      atPath: package + "/Pages/p1/text.txt", toPath: names.path(names.temporary).string)
    // Killed here: no record yet, the removed file beside the package.
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    #expect(check.standardOutput.contains("completed an interrupted save"), "\(check.standardOutput)")
    #expect(!FileManager.default.fileExists(atPath: names.path(names.temporary).string))
    let store = try VersionStore(forPackageAt: path)
    #expect(!store.hasPendingVersions)
    #expect(try store.versions().map(\.unkeptPaths) == [[]])
    let version = try store.tree(of: 1)
    #expect(try text(version, "Pages/p1/text.txt") == "one\n")
    #expect(try text(version, "Text.txt") == "hello\n")
  }

  /// A save held up by a coordinated reader past the wait limit fails after the version store was told
  /// (the commit point) and before its swap: the keeper abandons what it began, so the next save keeps one
  /// version of the state, not a second one (copied) or one recovery finishes from a capture left begun.
  @Test(arguments: [true, false])
  func aSaveHeldUpByAReaderLeavesNoVersionBehind(deferred: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = deferred
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("ONE\n".utf8))
    let limit = PackageReadLock.writerWaitLimit
    PackageReadLock.writerWaitLimit = .milliseconds(200)
    defer { PackageReadLock.writerWaitLimit = limit }
    let reader = try PackageReadLock(forPackageAt: FilePath(package))
    #expect(throws: PackageError.self) { try document.save() }
    reader.unlock()
    try document.save()
    let store = try document.versionStore()
    try store.settlePendingVersions()
    let versions = try store.versions()
    #expect(versions.count == 1, "\(versions.map(\.id))")
    #expect(try text(store.tree(of: versions[0].id), "Pages/p1/text.txt") == "one\n")
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 0 && !check.standardOutput.contains("interrupted"), "\(check.standardOutput)")
  }

  @Test func readingTheStoreSettlesFirst() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Text.txt", contents: Data("v2\n".utf8))
    try document.save()
    let store = try VersionStore(forPackageAt: FilePath(package))
    #expect(try store.versions().map(\.id) == [1])
    #expect(try text(store.tree(of: 1), "Text.txt") == "hello\n")
  }

  @Test func severalSavesBeforeSettlingEachKeepTheirOwnPreviousState() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("1\n".utf8))
    try document.save()
    try document.root.setFile(at: "Pages/p2/text.txt", contents: Data("2\n".utf8))
    try document.save()
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("3\n".utf8))
    try document.root.setFile(at: "New.txt", contents: Data("new\n".utf8))
    try document.save()  // a change at the root: the whole package is replaced
    let store = try document.versionStore()
    #expect(try store.settlePendingVersions().map(\.id) == [1, 2, 3])
    let expected = [("one\n", "two\n"), ("1\n", "two\n"), ("1\n", "2\n")]
    for (index, (p1, p2)) in expected.enumerated() {
      let version = try store.tree(of: index + 1)
      #expect(try text(version, "Pages/p1/text.txt") == p1, "version \(index + 1)")
      #expect(try text(version, "Pages/p2/text.txt") == p2, "version \(index + 1)")
      #expect(try version.nodeIfPresent(at: "New.txt") == nil)
    }
    #expect(try store.versions().allSatisfy(\.unkeptPaths.isEmpty))
  }

  @Test(arguments: VersionSafetyTests.writes.map(\.command))
  func aWriteInPlaceBeforeTheCopyIsNamedNotKept(_ command: String) throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("ONE\n".utf8))
    try document.save()
    // In the window: the store has no copy of Text.txt yet.
    try Shell.run("/bin/sh", ["-c", command, "sh", package + "/Text.txt"])
    let store = try document.versionStore()
    #expect(try store.settlePendingVersions().map(\.unkeptPaths) == [["Text.txt"]])
    let version = try store.tree(of: 1)
    #expect(try version.nodeIfPresent(at: "Text.txt") == nil)  // never the new bytes
    #expect(try text(version, "Pages/p1/text.txt") == "one\n")
    #expect(try text(version, "Index.json") == "{}\n")
    let damage = try store.damagedVersions()
    #expect(damage.map(\.id) == [1])
    #expect(damage.first?.problems.first?.hasPrefix("Text.txt: not kept") == true)
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    #expect(check.standardOutput.contains("damaged: version 1: Text.txt: not kept"), "\(check.standardOutput)")
  }

  @Test func aFileReplacedByAnotherProgramInTheWindowIsNamed() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Pages/p1/text.txt", contents: Data("ONE\n".utf8))
    try document.save()
    // A new file renamed over Index.json, with the old file's time: its change time tells.
    let other = try temp.write("other.json", "[]\n")
    try Shell.run("/usr/bin/touch", ["-r", package + "/Index.json", other])
    try FileManager.default.removeItem(atPath: package + "/Index.json")
    try FileManager.default.moveItem(atPath: other, toPath: package + "/Index.json")
    let store = try document.versionStore()
    let unkept = try store.settlePendingVersions().first?.unkeptPaths ?? []
    #expect(unkept.contains("Index.json"))
    #expect(try store.tree(of: 1).nodeIfPresent(at: "Index.json") == nil)
  }

  @Test func theCommandLineSettlesInADetachedProcess() async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let source = try temp.write("source.txt", "put\n")
    let put = try Shell.docpkg(["put", package, "Text.txt", source])
    #expect(put.status == 0, "\(put.standardError)")
    let store = try VersionStore(forPackageAt: FilePath(package))
    #expect(await eventually { !store.hasPendingVersions })
    #expect(try text(store.tree(of: 1), "Text.txt") == "hello\n")
  }

  @Test func aKilledSettleIsStartedAgainAndLeavesNoObjectBehind() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Text.txt", contents: Data("v2\n".utf8))
    try document.save()
    let store = try document.versionStore()
    // What a kill during the copies leaves: a staged object in tmp/, no record.
    try Data("half".utf8).write(to: URL(fileURLWithPath: store.temporaryPath.string + "/object-1"))
    #expect(try store.settlePendingVersions().map(\.id) == [1])
    #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryPath.string).isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: store.pendingPath.string).isEmpty)
    #expect(try text(store.tree(of: 1), "Text.txt") == "hello\n")
  }
}
