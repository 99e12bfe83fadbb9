import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// The scan a push and a pull start with: it hashes only the files its index does not know at their status, and
/// gives the same trees as a scan that hashes everything (no server needed).
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
    let index = FilePath(dir.appending(".P.mydoc.docpkg-sync/index"))
    let first = try Snapshot(packageAt: package, index: index)
    #expect(first.hashedFiles == 201)
    let again = try Snapshot(packageAt: package, index: index)
    #expect(again.hashedFiles == 0)
    #expect(again.root == first.root)

    // One file rewritten in place (same inode, new size and time), one replaced, one added, one removed.
    try Data("changed in place, longer\n".utf8).write(to: URL(fileURLWithPath: dir.appending("P.mydoc/d3/f4.txt")))
    try dir.write("P.mydoc/d5/new.txt", "new\n")
    try FileManager.default.removeItem(atPath: dir.appending("P.mydoc/d7/f1.txt"))
    let changed = try Snapshot(packageAt: package, index: index)
    #expect(changed.hashedFiles == 2)
    let full = try Snapshot(packageAt: package, index: FilePath(dir.appending("no-index")))
    #expect(full.hashedFiles == 201)
    #expect(changed.root == full.root)
    #expect(changed.trees == full.trees)
    #expect(changed.blobs[SHA256Hex.of(Data("changed in place, longer\n".utf8))]?.path == "d3/f4.txt")

    // A damaged index is only a cache: the scan hashes again and gets the same state.
    try Data("docpkg-sync-index 1\nD 12 %\nE f 644 garbage\n".utf8).write(to: URL(fileURLWithPath: index.string))
    let afterDamage = try Snapshot(packageAt: package, index: index)
    #expect(afterDamage.root == full.root)
    #expect(afterDamage.hashedFiles == 201)
  }

  func inode(_ path: FilePath) throws -> UInt64 {
    let attributes = try FileManager.default.attributesOfItem(atPath: path.string)
    return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
  }

  func size(_ path: FilePath) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path.string)[.size] as? NSNumber)?.intValue ?? 0
  }

  @Test func aScanAfterOneChangeAppendsToTheIndexAndRewritesItOnlyOnceMostOfItIsReplaced() throws {
    let dir = try TemporaryDirectory("sync-index-append")
    let package = try makePackage(dir, directories: 20, files: 20)
    let index = FilePath(dir.appending(".P.mydoc.docpkg-sync/index"))
    _ = try Snapshot(packageAt: package, index: index)
    let (firstInode, firstSize) = (try inode(index), try size(index))

    // One file changed: the blocks of its directory and of the root are appended, not the whole index rewritten.
    try dir.write("P.mydoc/d3/f4.txt", "changed once\n")
    let once = try Snapshot(packageAt: package, index: index)
    #expect(once.hashedFiles == 1)
    #expect(try inode(index) == firstInode)
    #expect(try size(index) - firstSize < firstSize / 4)
    let again = try Snapshot(packageAt: package, index: index)
    #expect(again.hashedFiles == 0)
    #expect(again.root == once.root)

    // Changed again and again: once replaced blocks would be more than half of the file, it is written anew.
    var rewritten = false
    for round in 0..<40 where !rewritten {
      // A new size each round: two writes in one clock tick must not look alike.
      try dir.write("P.mydoc/d3/f4.txt", "changed in round \(round)" + String(repeating: "x", count: round) + "\n")
      let scan = try Snapshot(packageAt: package, index: index)
      #expect(scan.hashedFiles == 1)
      rewritten = try inode(index) != firstInode
    }
    #expect(rewritten)
    #expect(try size(index) < 2 * firstSize)
    let full = try Snapshot(packageAt: package, index: FilePath(dir.appending("no-index")))
    let last = try Snapshot(packageAt: package, index: index)
    #expect(last.hashedFiles == 0)
    #expect(last.root == full.root)
    #expect(last.trees == full.trees)
  }

  @Test func anIndexWithATornLastLineStillReadsAndTakesAppends() throws {
    let dir = try TemporaryDirectory("sync-index-torn")
    let package = try makePackage(dir)
    let index = FilePath(dir.appending(".P.mydoc.docpkg-sync/index"))
    _ = try Snapshot(packageAt: package, index: index)
    // What a crash during an append may leave: a block cut in the middle of a line.
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: index.string))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("D 0123 d3\nE f 644 4 abc".utf8))
    try handle.close()

    try dir.write("P.mydoc/d5/f1.txt", "changed after the crash\n")
    let changed = try Snapshot(packageAt: package, index: index)
    let full = try Snapshot(packageAt: package, index: FilePath(dir.appending("no-index")))
    #expect(changed.root == full.root)
    let again = try Snapshot(packageAt: package, index: index)
    #expect(again.hashedFiles == 0)
    #expect(again.root == full.root)
  }
}
