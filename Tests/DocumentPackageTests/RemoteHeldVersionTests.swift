import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A version that keeps files on a remote (what DocumentSync's pull keeps): the files the remote holds are
/// referenced, not copied; reading one before it is fetched says so; the store's check does not call it damage;
/// fetched bytes are taken in only when they match; and a later version of the same folders copies its files (the
/// directory cache never hands a later version a tree whose files are on a remote).
@Suite("Versions that keep files on a remote")
struct RemoteHeldVersionTests {
  let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

  /// A package with a big file in a folder and a small one, saved with the small one changed and a remote holding
  /// the big file's blob (as a pull saves): its previous state is the last version.
  func savedWithHolding(_ temp: TemporaryDirectory) throws -> (PackageFile, RemoteHolding) {
    try temp.write("Doc.pkg/media/big.bin", big)
    try temp.write("Doc.pkg/notes.txt", "before\n")
    let file = try PackageFile(at: FilePath(temp.appending("Doc.pkg")))
    let holding = RemoteHolding(
      remote: "origin", tree: String(repeating: "ab", count: 32), blobs: [ContentHash.of(big)])
    try file.root.setFile(at: "notes.txt", contents: Data("after\n".utf8))
    try file.save(options: [], previousStateHolding: holding)
    return (file, holding)
  }

  /// The bytes of the store's `objects/`, counted file by file.
  func objectBytes(_ store: VersionStore) throws -> Int {
    let objects = store.path.appending("objects").string
    var total = 0
    for case let name as String in FileManager.default.enumerator(atPath: objects)! {
      let attributes = try FileManager.default.attributesOfItem(atPath: objects + "/" + name)
      if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int) ?? 0 }
    }
    return total
  }

  @Test func aHeldFileIsReferencedNotCopiedAndSaysSoWhenRead() throws {
    let temp = try TemporaryDirectory()
    let (file, holding) = try savedWithHolding(temp)
    let store = try file.versionStore()
    let version = try #require(try store.versions().last)
    #expect(version.remote == "origin")
    #expect(try objectBytes(store) < 10_000)  // tree objects and the small file, not the 300 KB one
    let tree = try store.tree(of: version.id)
    #expect(try tree.node(at: "notes.txt").contents() == Data("before\n".utf8))  // copied: not on the remote
    let error = #expect(throws: PackageError.self) { try tree.node(at: "media/big.bin").contents() }
    #expect(error?.code == .onRemote)
    #expect("\(error!)".contains("remote 'origin'"))
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    let held = try #require(try VersionStore.remoteHeldVersion(version.id, ofPackageAt: file.path))
    #expect(held.unfetched == [ContentHash.of(big): Int64(big.count)])
    #expect(held.remoteTree == holding.tree)
  }

  @Test func fetchedBytesAreTakenInOnlyWhenTheyMatch() throws {
    let temp = try TemporaryDirectory()
    let (file, _) = try savedWithHolding(temp)
    let id = try #require(try file.versionStore().versions().last?.id)
    let hash = ContentHash.of(big)
    let wrong = try temp.write("download-wrong", Data("not the bytes\n".utf8))
    let error = #expect(throws: PackageError.self) {
      try VersionStore.takeFetchedBlobs(ofPackageAt: file.path, [(hash: hash, path: FilePath(wrong))])
    }
    #expect(error?.code == .corrupt)
    #expect(error?.path == wrong)
    #expect(try VersionStore.remoteHeldVersion(id, ofPackageAt: file.path)?.unfetched.count == 1)

    let right = try temp.write("download", big)
    try VersionStore.takeFetchedBlobs(ofPackageAt: file.path, [(hash: hash, path: FilePath(right))])
    #expect(try VersionStore.remoteHeldVersion(id, ofPackageAt: file.path)?.unfetched.isEmpty == true)
    #expect(try file.versionStore().tree(of: id).node(at: "media/big.bin").contents() == big)
    try file.restoreVersion(id)
    #expect(try Data(contentsOf: URL(fileURLWithPath: temp.appending("Doc.pkg/media/big.bin"))) == big)
    #expect(try String(contentsOfFile: temp.appending("Doc.pkg/notes.txt"), encoding: .utf8) == "before\n")
  }

  @Test func aLaterVersionOfTheSameFoldersCopiesItsFiles() throws {
    let temp = try TemporaryDirectory()
    let (file, _) = try savedWithHolding(temp)
    // media/ is unchanged on disk: a save that keeps a plain version must still copy big.bin.
    try file.root.setFile(at: "notes.txt", contents: Data("later\n".utf8))
    try file.save()
    let store = try file.versionStore()
    let version = try #require(try store.versions().last)
    #expect(version.remote == nil)
    #expect(try store.tree(of: version.id).node(at: "media/big.bin").contents() == big)
  }

  @Test func theRemoteLineOfARecordRoundTrips() throws {
    let version = PackageVersion(
      id: 4, date: Date(timeIntervalSince1970: 5), origin: .saved, isResolved: true, size: 9, conflictPaths: [],
      remote: "my remote")
    let tree = String(repeating: "cd", count: 32)
    let record = VersionRecord(
      version: version, rootTree: tree, rootPermissions: FilePermissions(rawValue: 0o755),
      rootTime: FileTime(seconds: 5, nanoseconds: 0), remoteTree: String(repeating: "ef", count: 32))
    let read = try #require(VersionRecord(id: 4, data: record.encoded()))
    #expect(read.version.remote == "my remote")
    #expect(read.remoteTree == String(repeating: "ef", count: 32))
    // A remote line without a valid tree is not a whole record.
    let broken = Data(
      String(decoding: record.encoded(), as: UTF8.self).replacingOccurrences(of: " efef", with: " zz").utf8)
    #expect(VersionRecord(id: 4, data: broken) == nil)
  }
}
