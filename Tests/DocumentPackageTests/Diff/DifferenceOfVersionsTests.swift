import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 40: a comparison of two versions of a package read every file both hold (and, at a million files,
/// took over 36 s of CPU to find one change). Unchanged files are one blob of the store on both sides: the
/// comparison costs what differs.
@Suite("PackageDifference of two versions")
struct DifferenceOfVersionsTests {
  /// A package saved three times: versions 2 and 3 differ in `Text.txt` only, same size ("one", "two").
  private func twoVersions(_ temp: TemporaryDirectory) throws -> VersionStore {
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    for text in ["one\n", "two\n", "three\n"] {
      try document.root.setFile(at: "Text.txt", contents: Data(text.utf8))
      try document.save()
    }
    let store = try document.versionStore()
    _ = try store.settlePendingVersions()
    return store
  }

  @Test func readsNoFileBothVersionsShare() throws {
    let temp = try TemporaryDirectory()
    let store = try twoVersions(temp)
    // Index.json is the same blob in both: gone from the store, it is not read (check is what finds it).
    try FileManager.default.removeItem(atPath: store.objectPath(ContentHash.of(Data("{}\n".utf8))).string)
    let old = try store.tree(of: 2)
    let new = try store.tree(of: 3)
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M Text.txt"])
    #expect(DiffTrees.lines(try old.difference(from: new)) == ["M Text.txt"])
    // Text.txt, the same size in both but another blob, was read and compared.
    #expect(try old.node(at: "Text.txt").contents() == Data("one\n".utf8))
    #expect(try new.node(at: "Text.txt").contents() == Data("two\n".utf8))
  }

  @Test func entersNoFolderBothVersionsShare() throws {
    let temp = try TemporaryDirectory()
    let store = try twoVersions(temp)
    // Pages/p1's tree is one object in both versions (as Pages' is): gone from the store, it is not read.
    let address = try #require(try store.treeListedLazily(of: 2).node(at: "Pages").children()["p1"]?.contentAddress)
    try FileManager.default.removeItem(atPath: store.objectPath(String(address.split(separator: "#").last!)).string)
    let old = try store.treeListedLazily(of: 2)
    let new = try store.treeListedLazily(of: 3)
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M Text.txt"])
    // Read whole, the version names the damage.
    #expect(throws: PackageError.self) { try store.tree(of: 2) }
  }
}
