import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

/// A zip read in place keeps a compact index of its central directory and makes the nodes of a directory only
/// when it is listed: what lets `docpkg serve` and `inspect` open a zip of a million entries in bounded memory.
@Suite("zips read in place list their directories on demand")
struct ZipIndexTests {
  /// A package of `count` files in three folders (one nested), packed to a zip; returns both paths.
  private func packedPackage(_ temp: TemporaryDirectory, count: Int) throws -> (package: String, zip: FilePath) {
    for index in 0..<count {
      let folder = ["d0", "d1", "d1/inner"][index % 3]
      try temp.write("P.pkg/\(folder)/f\(index).txt", "note \(index)\n" + String(repeating: "x", count: index))
    }
    let zip = FilePath(temp.appending("P.zip"))
    try ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(temp.appending("P.pkg"))), to: zip, options: PackOptions(format: .zip))
    return (temp.appending("P.pkg"), zip)
  }

  @Test("a directory is listed when first asked for, and listed again the same after a walk forgets it")
  func listedOnDemand() throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 30)
    let root = try ArchivePackage.open(zip)
    #expect(!root.isLoaded)
    let inner = try root.node(at: "d1/inner")
    #expect(!inner.isLoaded)
    #expect(!(try root.node(at: "d0")).isLoaded)
    #expect(
      try inner.sortedChildren().map(\.name) == [
        "f11.txt", "f14.txt", "f17.txt", "f2.txt", "f20.txt",
        "f23.txt", "f26.txt", "f29.txt", "f5.txt", "f8.txt",
      ])
    // Forgotten from the bottom up, as `inspect` forgets what it has printed; then the same tree again.
    #expect(inner.forgetListing())
    #expect(try root.node(at: "d1").forgetListing())
    #expect(root.forgetListing())
    #expect(!root.isLoaded)
    #expect(try PackageNode(contentsOf: FilePath(package)).difference(from: root).isEmpty)
    #expect(
      try root.node(at: "d1/inner/f29.txt").contents() == Data(("note 29\n" + String(repeating: "x", count: 29)).utf8))
  }

  @Test("a directory changed in memory keeps its listing: forgetting it would lose the change")
  func changedListingIsKept() throws {
    let temp = try TemporaryDirectory()
    let (_, zip) = try packedPackage(temp, count: 9)
    let root = try ArchivePackage.open(zip)
    let d0 = try root.node(at: "d0")
    try d0.setFile(at: "new.txt", contents: Data("new\n".utf8))
    #expect(!d0.forgetListing())
    #expect(try d0.node(at: "new.txt").contents() == Data("new\n".utf8))
  }

  @Test("a folder of a zip read in place, added to a package and saved, is saved whole")
  func savedWhole() throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 30)
    let file = try PackageFile.create(at: FilePath(temp.appending("Copy.pkg")))
    _ = try file.root.replaceChild(named: "from-zip", with: try ArchivePackage.open(zip))
    try file.save()
    #expect(
      try PackageNode(contentsOf: FilePath(package)).difference(
        from: PackageNode(contentsOf: FilePath(temp.appending("Copy.pkg/from-zip")))
      ).isEmpty)
    // And a whole zip read in place as a new package.
    _ = try PackageFile.create(at: FilePath(temp.appending("New.pkg")), root: try ArchivePackage.open(zip))
    #expect(
      try PackageNode(contentsOf: FilePath(package)).difference(
        from: PackageNode(contentsOf: FilePath(temp.appending("New.pkg")))
      ).isEmpty)
  }

  @Test("limits are judged from the index, in the order a walk meets the entries, with no node made")
  func limitsFromTheIndex() throws {
    let temp = try TemporaryDirectory()
    let (_, zip) = try packedPackage(temp, count: 30)
    var limits = UnpackLimits()
    limits.maxEntryCount = 10
    #expect(throws: PackageError.self) { try ArchivePackage.open(zip, limits: limits) }
    limits = UnpackLimits()
    limits.maxTotalSize = 200
    let error = try #require(throws: PackageError.self) { try ArchivePackage.open(zip, limits: limits) }
    // d0's files come first, by name: f0 (7 bytes), f12 (20), f15, f18, ..., f6 (195 in all), f9 (211).
    #expect(error.context.contains("at entry 'd0/f9.txt'"))
  }

  @Test("serve's check for links lists nothing in a zip read through its index, and still looks in a zip with a link")
  func linksNeedNoWalk() throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 9)
    let root = try ArchivePackage.open(zip)
    #expect(!ArchivePackage.mayHoldLinks(root))
    #expect(!root.isLoaded)
    try Shell.run("ln", ["-s", "d0/f0.txt", package + "/link"])
    let linked = FilePath(temp.appending("L.zip"))
    try ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(package)), to: linked, options: PackOptions(format: .zip))
    #expect(ArchivePackage.mayHoldLinks(try ArchivePackage.open(linked)))
  }
}
