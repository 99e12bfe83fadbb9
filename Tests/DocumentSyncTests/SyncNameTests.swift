import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// The check a pull and a clone make of the remote tree before anything is downloaded or written: names the
/// package's file system cannot hold refuse them (no server needed; the exFAT case runs where
/// `DOCPKG_FS_EXFAT` names a mount, as `Scripts/filesystems.sh` makes it).
@Suite struct SyncNameTests {
  static let tree: FlatTree = [
    "Notes": entry(.directory, "Notes", ""),
    "Notes/a.txt": entry(.file, "a.txt", String(repeating: "a", count: 64)),
    "Notes/A.txt": entry(.file, "A.txt", String(repeating: "b", count: 64)),
    "x:y.txt": entry(.file, "x:y.txt", String(repeating: "c", count: 64)),
  ]

  static func entry(_ kind: NodeKind, _ name: String, _ reference: String) -> TreeEntry {
    TreeEntry(
      kind: kind,
      permissions: kind == .directory
        ? [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute]
        : [.ownerReadWrite, .groupRead, .otherRead],
      time: FileTime(seconds: 1_700_000_000), size: kind == .file ? 1 : 0, reference: reference, name: name)
  }

  @Test func aFileSystemThatHoldsEveryNameTakesTheTree() throws {
    let dir = try TemporaryDirectory("sync-names")
    try Self.tree.checkNamesFit(in: SyncFolder(packagePath: FilePath(dir.appending("P.mydoc"))), "cannot clone")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)  // the probe left nothing
  }

  @Test(.enabled(if: ProcessInfo.processInfo.environment["DOCPKG_FS_EXFAT"] != nil, "DOCPKG_FS_EXFAT is not set"))
  func exFATRefusesCaseTwinsAndReservedCharacters() throws {
    let mount = ProcessInfo.processInfo.environment["DOCPKG_FS_EXFAT"]!
    let folder = mount + "/docpkg-sync-names-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    defer { _ = try? Shell.run("rm", ["-rf", folder]) }
    let package = FilePath(folder + "/P.mydoc")
    var twins = Self.tree
    twins["x:y.txt"] = nil
    let error = try #require(throws: PackageError.self) {
      try twins.checkNamesFit(in: SyncFolder(packagePath: package), "cannot pull")
    }
    #expect(
      error.description
        == "cannot pull 'Notes/a.txt' into '\(package)': it differs from 'Notes/A.txt' only in case, which the file "
        + "system at '\(folder)' does not tell apart")
    var reserved = Self.tree
    reserved["Notes/A.txt"] = nil
    let refused = try #require(throws: PackageError.self) {
      try reserved.checkNamesFit(in: SyncFolder(packagePath: package), "cannot clone")
    }
    #expect(
      refused.description
        == "cannot clone 'x:y.txt' into '\(package)': ':' is not allowed in a name on the file system at '\(folder)'")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
  }

  @Test func aRefusedCloneRemovesTheSyncFolderItMade() throws {
    let dir = try TemporaryDirectory("sync-names")
    let folder = SyncFolder(packagePath: FilePath(dir.appending("P.mydoc")))
    try dir.write(".P.mydoc.docpkg-sync/trees/ab/cdef", "tree")
    folder.removeIfOnlyACloneLeftover()
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
  }
}
