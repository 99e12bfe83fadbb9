import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A save whose only root-level change is one entry added or replaced renames that entry into the
/// live root instead of rebuilding the root (and relinking every file below it).
@Suite("One root entry saved in place")
struct RootEntrySaveTests {
  /// The inodes of the root and of its unchanged subdirectories: kept by the in-place save,
  /// all new after a rebuild of the root.
  func inodes(_ package: String) throws -> [UInt64] {
    try ["", "/Images", "/Pages", "/Pages/p1"].map { try info(package + $0).inode }
  }

  @Test func anAddedRootEntryLeavesTheRootAndItsSubdirectoriesInPlace() throws {
    let temp = try TemporaryDirectory("root-entry")
    let package = try makePackage(in: temp)
    let reference = try PackageReference(package: FilePath(package))
    let before = try inodes(package)
    let file = try PackageFile(at: FilePath(package))
    file.versionPolicy = .none
    try file.root.setFile(at: "Notes/2026/n.txt", contents: Data("note\n".utf8))
    try file.save()
    #expect(try inodes(package) == before)
    #expect(try read(package + "/Notes/2026/n.txt") == "note\n")
    #expect(try read(package + "/Pages/p2/text.txt") == "two\n")
    #expect(try info(package + "/Images/a.png").mode == 0o444)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).sorted() == ["Doc.pkg"])
    #expect(try !reference.resolve().isStale)
    if let identity = PackageIdentity.read(at: FilePath(package)) {  // nil where the file system keeps no attributes
      #expect(identity.isBound(to: try Syscalls.statusNoFollow(FilePath(package))))
    }

    // The model reads from the saved package and the next save is incremental again.
    #expect(try file.root.node(at: "Notes/2026/n.txt").contents() == Data("note\n".utf8))
    #expect(file.root.changeRoot == nil)
    try file.root.setContents(Data("again\n".utf8), at: "Notes/2026/n.txt")
    try file.save()
    #expect(try read(package + "/Notes/2026/n.txt") == "again\n")
    #expect(try inodes(package) == before)
  }

  @Test func aReplacedRootDirectoryIsExchangedAlone() throws {
    let temp = try TemporaryDirectory("root-entry")
    let package = try makePackage(in: temp)
    let root = try info(package).inode
    let pages = try info(package + "/Pages").inode
    let file = try PackageFile(at: FilePath(package))
    file.versionPolicy = .none
    _ = try file.root.removeNode(at: "Images")
    try file.root.setFile(at: "Images/c.png", contents: Data("C".utf8))
    try file.save()
    #expect(try info(package).inode == root)
    #expect(try info(package + "/Pages").inode == pages)
    #expect(try FileManager.default.contentsOfDirectory(atPath: package + "/Images") == ["c.png"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).sorted() == ["Doc.pkg"])
    #expect(try file.root.node(at: "Images/c.png").contents() == Data("C".utf8))
  }

  @Test func twoRootChangesStillBuildANewRoot() throws {
    let temp = try TemporaryDirectory("root-entry")
    let package = try makePackage(in: temp)
    let root = try info(package).inode
    let file = try PackageFile(at: FilePath(package))
    file.versionPolicy = .none
    try file.root.setFile(at: "A.txt", contents: Data("a".utf8))
    try file.root.setFile(at: "B.txt", contents: Data("b".utf8))
    try file.save()
    #expect(try info(package).inode != root)  // two renames in the live root would not be one atomic step
    #expect(try read(package + "/A.txt") + read(package + "/B.txt") == "ab")
    #expect(try read(package + "/Pages/p1/text.txt") == "one\n")
  }

  @Test func anEntryAnotherProgramAddedIsNotKeptByAnOverwritingSave() throws {
    let temp = try TemporaryDirectory("root-entry")
    let package = try makePackage(in: temp)
    let file = try PackageFile(at: FilePath(package))
    file.versionPolicy = .none
    _ = try file.root.children()
    try temp.write("Doc.pkg/Foreign.txt", "theirs\n")
    try file.root.setFile(at: "Mine.txt", contents: Data("mine\n".utf8))
    try file.save(options: .overwritingOutsideChanges)
    // The root listing differs from the model: the root is rebuilt, so the package is the model's state.
    #expect(!FileManager.default.fileExists(atPath: package + "/Foreign.txt"))
    #expect(try read(package + "/Mine.txt") == "mine\n")
  }

  @Test func aMonitorMarksTheAddedEntryAsThisProcessesSave() async throws {
    let temp = try TemporaryDirectory("root-entry")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package))
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    let file = try PackageFile(at: FilePath(package))
    file.versionPolicy = .none
    try file.root.setFile(at: "New.txt", contents: Data("new\n".utf8))
    try file.save()
    #expect(await events.wait(for: .added, "New.txt"))
    #expect(events.events.allSatisfy { $0.isOwnSave })
    #expect(!events.changes.contains { $0.kind == .removed || $0.kind == .packageReplaced })
  }
}
