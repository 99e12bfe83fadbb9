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
}
