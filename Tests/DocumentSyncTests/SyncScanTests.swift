import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// The scan a push and a pull start with (`PackageScan`, with the version store's stat cache): it hashes only the
/// files the cache does not know at their status, and gives the same trees as a scan that hashes everything (no
/// server needed).
@Suite struct SyncScanTests {
  /// A package of `directories` × `files` small files.
  func makePackage(_ dir: TemporaryDirectory, directories: Int = 10, files: Int = 20) throws -> FilePath {
    for d in 0..<directories {
      for f in 0..<files { try dir.write("P.mydoc/d\(d)/f\(f).txt", "file \(d)/\(f)\n") }
    }
    try dir.write("P.mydoc/top.txt", "top\n")
    return FilePath(dir.appending("P.mydoc"))
  }

  @Test func aScanHashesOnlyTheFilesThatChangedAndAgreesWithAFullScan() throws {
    let dir = try TemporaryDirectory("sync-scan")
    let package = try makePackage(dir)
    let cache = FilePath(dir.appending("hashes"))
    let first = try PackageScan(packageAt: package, hashCache: cache)
    #expect(first.hashedFiles == 201)
    let again = try PackageScan(packageAt: package, hashCache: cache)
    #expect(again.hashedFiles == 0)
    #expect(again.root == first.root)

    // One file rewritten in place (same inode, new size and time), one replaced, one added, one removed.
    try Data("changed in place, longer\n".utf8).write(to: URL(fileURLWithPath: dir.appending("P.mydoc/d3/f4.txt")))
    try dir.write("P.mydoc/d5/new.txt", "new\n")
    try FileManager.default.removeItem(atPath: dir.appending("P.mydoc/d7/f1.txt"))
    let changed = try PackageScan(packageAt: package, hashCache: cache)
    #expect(changed.hashedFiles == 2)
    let full = try PackageScan(packageAt: package, hashCache: FilePath(dir.appending("none/hashes")))
    #expect(full.hashedFiles == 201)
    #expect(changed.root == full.root)
    #expect(changed.trees == full.trees)
    #expect(changed.blobs[SHA256Hex.of(Data("changed in place, longer\n".utf8))]?.path == "d3/f4.txt")

    // A damaged cache is only a cache: the scan hashes again and gets the same state.
    try Data("2049 12 garbage\n\u{0}\u{1}".utf8).write(to: URL(fileURLWithPath: cache.string))
    let afterDamage = try PackageScan(packageAt: package, hashCache: cache)
    #expect(afterDamage.root == full.root)
    #expect(afterDamage.hashedFiles == 201)
  }

  func size(_ path: FilePath) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path.string)[.size] as? NSNumber)?.intValue ?? 0
  }

  @Test func aScanAfterOneChangeAppendsOneLineToTheCache() throws {
    let dir = try TemporaryDirectory("sync-cache-append")
    let package = try makePackage(dir, directories: 20, files: 20)
    let cache = FilePath(dir.appending("hashes"))
    _ = try PackageScan(packageAt: package, hashCache: cache)
    let firstSize = try size(cache)
    try dir.write("P.mydoc/d3/f4.txt", "changed once\n")
    let once = try PackageScan(packageAt: package, hashCache: cache)
    #expect(once.hashedFiles == 1)
    #expect(try size(cache) - firstSize < 200)
    let again = try PackageScan(packageAt: package, hashCache: cache)
    #expect(again.hashedFiles == 0)
    #expect(again.root == once.root)
  }

  @Test func aCacheWithATornLastLineStillReadsAndTakesAppends() throws {
    let dir = try TemporaryDirectory("sync-cache-torn")
    let package = try makePackage(dir)
    let cache = FilePath(dir.appending("hashes"))
    _ = try PackageScan(packageAt: package, hashCache: cache)
    // What a crash during an append may leave: a line cut in the middle.
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cache.string))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("2049 1234 5 1700000000.0000".utf8))
    try handle.close()

    try dir.write("P.mydoc/d5/f1.txt", "changed after the crash\n")
    let changed = try PackageScan(packageAt: package, hashCache: cache)
    let full = try PackageScan(packageAt: package, hashCache: FilePath(dir.appending("none/hashes")))
    #expect(changed.root == full.root)
    #expect(changed.hashedFiles <= 2)
    let again = try PackageScan(packageAt: package, hashCache: cache)
    #expect(again.root == full.root)
  }

  @Test func syncUsesTheVersionStoresStatCacheAndItsTreesAreAVersionsTrees() throws {
    let dir = try TemporaryDirectory("sync-one-cache")
    let package = try makePackage(dir, directories: 3, files: 3)
    try FileManager.default.createSymbolicLink(atPath: dir.appending("P.mydoc/link"), withDestinationPath: "top.txt")
    // A save keeps the state it replaces as a version.
    let file = try PackageFile(at: package)
    try file.root.setFile(at: "d0/f0.txt", contents: Data("saved\n".utf8))
    try file.save()
    file.close()
    let store = try VersionStore(forPackageAt: package)
    let kept = try #require(try store.versions().last)

    let scan = try VersionStore.scan(packageAt: package, lockHeld: false)
    #expect(FileManager.default.fileExists(atPath: dir.appending(".P.mydoc.docpkg-versions/hashes")))
    #expect(try VersionStore.scan(packageAt: package, lockHeld: false).hashedFiles == 0)
    // The version's tree object is the scan's tree of the same state (and a directory's line carries no time).
    let version = try store.tree(of: kept.id)
    #expect(try version.node(at: "d1/f1.txt").contents() == Data("file 1/1\n".utf8))
    let d1 = try #require(scan.treePaths["d1"])
    let object = try #require(
      try? Data(
        contentsOf: URL(
          fileURLWithPath: dir.appending(".P.mydoc.docpkg-versions/objects/\(d1.prefix(2))/\(d1.dropFirst(2))"))))
    #expect(SHA256Hex.of(object) == d1)
    #expect(String(decoding: scan.trees[scan.root]!.encoded(), as: UTF8.self).contains("d 755 0.000000000 0 "))
    // Compared with times, the version differs from the package in the one file the save changed: its
    // directories, whose times it does not keep, are not listed.
    var options = PackageDifference.Options()
    options.comparesModificationTimes = true
    let changes = try PackageNode(contentsOf: package).difference(from: version, options: options)
    #expect(changes.map(\.path) == ["d0/f0.txt"])
  }

  @Test func aStateFlattenedWithATreeMissingNamesTheStateAndThePath() throws {
    let dir = try TemporaryDirectory()
    let package = try makePackage(dir, directories: 2, files: 1)
    try dir.write("P.mydoc/d1/inner/deep.txt", "deep\n")
    var scan = try VersionStore.scan(packageAt: package, lockHeld: false)
    #expect(try FlatTree(root: scan.root, named: "the package", trees: scan.trees)["d1/inner/deep.txt"] != nil)
    let d1 = try #require(scan.trees[scan.root]?.entries["d1"]?.reference)
    let inner = try #require(scan.trees[d1]?.entries["inner"]?.reference)
    scan.trees[inner] = nil
    let error = try #require(throws: SyncError.self) {
      try FlatTree(root: scan.root, named: "the package", trees: scan.trees)
    }
    #expect(error.code == .corrupt)
    #expect(error.description == "missing tree object (the package, at d1/inner) 'trees/\(inner)'")
  }
}
