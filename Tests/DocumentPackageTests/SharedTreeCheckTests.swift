import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A version check (`docpkg check`, `docpkg versions list`) walks a tree that several versions share
/// once (issue 40): it must still name, for every version, a damaged file in such a tree.
@Suite("A tree shared by versions is checked once, its damage reported for each")
struct SharedTreeCheckTests {
  /// A package of folders d0…d2 with files f0…f2, saved three times with one file changed each time.
  private func savedThreeTimes(_ temp: TemporaryDirectory) throws -> VersionStore {
    for folder in 0..<3 {
      for file in 0..<3 { try temp.write("P.pkg/d\(folder)/f\(file).txt", "\(folder)/\(file)\n") }
    }
    let document = try PackageFile(at: FilePath(temp.appending("P.pkg")))
    for index in 1...3 {
      try document.root.setFile(at: "d2/f0.txt", contents: Data("v\(index)\n".utf8))
      try document.save()
    }
    return try document.versionStore()
  }

  /// The store's blob holding `text`.
  private func blob(holding text: String, in store: VersionStore) throws -> String? {
    let objects = store.path.appending("objects").string
    let names = FileManager.default.enumerator(atPath: objects)?.allObjects as? [String] ?? []
    return names.map { objects + "/" + $0 }.first { FileManager.default.contents(atPath: $0) == Data(text.utf8) }
  }

  @Test func aChangedBlobInAFolderEveryVersionSharesDamagesEachVersion() throws {
    let temp = try TemporaryDirectory()
    let store = try savedThreeTimes(temp)
    let ids = try store.versions().map(\.id)
    #expect(ids.count == 3)
    #expect(try store.damagedVersions().isEmpty)
    // d0/f1.txt's blob, the same in every version, changed to other bytes of the same size.
    let blob = try #require(try blob(holding: "0/1\n", in: store))
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: blob)
    try Data("0/9\n".utf8).write(to: URL(fileURLWithPath: blob))
    let damage = try store.damagedVersions()
    #expect(damage.map(\.id) == ids)
    for version in damage {
      #expect(version.problems.count == 1, "\(version)")
      #expect(version.problems.first?.hasPrefix("d0/f1.txt: blob ") == true, "\(version)")
    }
  }

  @Test func aMissingBlobInTheFolderTheSavesChangedDamagesOnlyTheVersionsHoldingIt() throws {
    let temp = try TemporaryDirectory()
    let store = try savedThreeTimes(temp)
    let ids = try store.versions().map(\.id)
    // "v1\n" is d2/f0.txt in the second version only (the first kept "2/0\n", the third "v2\n").
    let blob = try #require(try blob(holding: "v1\n", in: store))
    try FileManager.default.removeItem(atPath: blob)
    let damage = try store.damagedVersions()
    #expect(damage.map(\.id) == [ids[1]])
    #expect(damage.first?.problems.count == 1)
    #expect(damage.first?.problems.first?.hasPrefix("d2/f0.txt: blob ") == true, "\(damage)")
  }
}
