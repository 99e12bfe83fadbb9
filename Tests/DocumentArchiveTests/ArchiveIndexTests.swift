import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

/// An archive read in place keeps a compact index of its entries (a zip's from its central directory, a tar's from
/// its headers) and makes the nodes of a directory only when it is listed: what lets `docpkg serve` and `inspect`
/// open an archive of a million entries in bounded memory.
@Suite("archives read in place list their directories on demand")
struct ArchiveIndexTests {
  /// A package of `count` files in three folders (one nested), packed to an archive; returns both paths.
  private func packedPackage(_ temp: TemporaryDirectory, count: Int, format: ArchiveFormat = .zip) throws -> (
    package: String, zip: FilePath
  ) {
    for index in 0..<count {
      let folder = ["d0", "d1", "d1/inner"][index % 3]
      try temp.write("P.pkg/\(folder)/f\(index).txt", "note \(index)\n" + String(repeating: "x", count: index))
    }
    let zip = FilePath(temp.appending(format == .zip ? "P.zip" : "P.tar"))
    try ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(temp.appending("P.pkg"))), to: zip, options: PackOptions(format: format))
    return (temp.appending("P.pkg"), zip)
  }

  @Test(
    "a directory is listed when first asked for, and listed again the same after a walk forgets it",
    arguments: [ArchiveFormat.zip, .tar])
  func listedOnDemand(format: ArchiveFormat) throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 30, format: format)
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

  @Test(
    "a directory changed in memory keeps its listing: forgetting it would lose the change",
    arguments: [ArchiveFormat.zip, .tar])
  func changedListingIsKept(format: ArchiveFormat) throws {
    let temp = try TemporaryDirectory()
    let (_, zip) = try packedPackage(temp, count: 9, format: format)
    let root = try ArchivePackage.open(zip)
    let d0 = try root.node(at: "d0")
    try d0.setFile(at: "new.txt", contents: Data("new\n".utf8))
    #expect(!d0.forgetListing())
    #expect(try d0.node(at: "new.txt").contents() == Data("new\n".utf8))
  }

  @Test(
    "a folder of an archive read in place, added to a package and saved, is saved whole",
    arguments: [ArchiveFormat.zip, .tar])
  func savedWhole(format: ArchiveFormat) throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 30, format: format)
    let file = try PackageFile.create(at: FilePath(temp.appending("Copy.pkg")))
    _ = try file.root.replaceChild(named: "from-zip", with: try ArchivePackage.open(zip))
    try file.save()
    #expect(
      try PackageNode(contentsOf: FilePath(package)).difference(
        from: PackageNode(contentsOf: FilePath(temp.appending("Copy.pkg/from-zip")))
      ).isEmpty)
    // And a whole archive read in place as a new package.
    _ = try PackageFile.create(at: FilePath(temp.appending("New.pkg")), root: try ArchivePackage.open(zip))
    #expect(
      try PackageNode(contentsOf: FilePath(package)).difference(
        from: PackageNode(contentsOf: FilePath(temp.appending("New.pkg")))
      ).isEmpty)
  }

  @Test(
    "limits are judged from the index, in the order a walk meets the entries, with no node made",
    arguments: [ArchiveFormat.zip, .tar])
  func limitsFromTheIndex(format: ArchiveFormat) throws {
    let temp = try TemporaryDirectory()
    let (_, zip) = try packedPackage(temp, count: 30, format: format)
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

  @Test("a tar read in place holds each path once: the walk's table of accepted paths, 40 bytes a path, is the index")
  func tarPathsHeldOnce() throws {
    let temp = try TemporaryDirectory()
    let (package, tar) = try packedPackage(temp, count: 30, format: .tar)
    let reader = try ArchiveReader(path: tar.string)
    var walk = ArchiveWalk(reader: reader, wrappingDocumentIn: nil)
    let cursor = ArchiveCursor(path: tar.string, format: reader.format)
    while let entry = try walk.next() {
      cursor.expect(entry.header.displayName, at: entry.index)
      _ = try entry.accepted()
    }
    let index = walk.index(contents: .entries(cursor))
    // P.pkg, d0, d1, d1/inner and the 30 files: one record each, with its parent, and nothing else kept.
    #expect(index.records.count == 34)
    #expect(MemoryLayout<ArchiveEntryIndex.Record>.stride == 40)
    #expect(walk.index(contents: .entries(cursor)).records.isEmpty, "the table moved into the index, not copied")
    let root = try index.root(of: tar, unwrappingSingleDirectory: true, limits: nil)
    #expect(try PackageNode(contentsOf: FilePath(package)).difference(from: root).isEmpty)
  }

  @Test("a tar's hard links (one to another too), symbolic links, described folders and pax times, read from its index")
  func tarEntriesFromTheIndex() throws {
    let temp = try TemporaryDirectory()
    let tar = temp.appending("T.tar")
    // Written by Python's tarfile: a folder implied by a file before it describes it, a hard link to a file and one to
    // that link, a name whose hard link spells its target decomposed, and times with nanoseconds.
    try Shell.run(
      "python3",
      [
        "-c",
        """
        import tarfile, io, sys
        def add(t, name, kind=tarfile.REGTYPE, data=b'', mode=0o644, link='', mtime=1700000000.25):
            info = tarfile.TarInfo(name); info.type = kind; info.mode = mode; info.linkname = link
            info.mtime = mtime; info.size = len(data)
            t.addfile(info, io.BytesIO(data) if data else None)
        with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:
            add(t, 'T/d/a.txt', data=b'alpha\\n', mode=0o640, mtime=1600000000.5)
            add(t, 'T/d', tarfile.DIRTYPE, mode=0o700, mtime=1500000000)
            add(t, 'T/h1', tarfile.LNKTYPE, link='T/d/a.txt', mode=0o600, mtime=1)
            add(t, 'T/h2', tarfile.LNKTYPE, link='T/h1')
            add(t, 'T/caf\\u00e9.txt', data=b'cafe\\n')
            add(t, 'T/h3', tarfile.LNKTYPE, link='T/cafe\\u0301.txt')
            add(t, 'T/s', tarfile.SYMTYPE, link='d/a.txt', mtime=1400000000)
        """,
        tar,
      ])
    let root = try ArchivePackage.open(FilePath(tar))
    #expect(!root.isLoaded)
    #expect(try root.sortedChildren().map(\.name) == ["caf\u{e9}.txt", "d", "h1", "h2", "h3", "s"])
    let file = try root.node(at: "d/a.txt")
    #expect(file.permissions.rawValue == 0o640)
    #expect(file.modificationTime == FileTime(seconds: 1_600_000_000, nanoseconds: 500_000_000))
    let folder = try root.node(at: "d")
    #expect(folder.permissions.rawValue == 0o700)
    #expect(folder.modificationTime == FileTime(seconds: 1_500_000_000))
    for link in ["h1", "h2"] {
      let node = try root.node(at: link)
      #expect(try node.contents() == Data("alpha\n".utf8))
      #expect(node.permissions == file.permissions && node.modificationTime == file.modificationTime)
    }
    #expect(try root.node(at: "h3").contents() == Data("cafe\n".utf8))
    let symlink = try root.node(at: "s")
    #expect(symlink.kind == .symlink && symlink.symbolicLinkDestination == "d/a.txt")
    #expect(symlink.modificationTime == FileTime(seconds: 1_400_000_000))
    // What unpacking the same archive writes.
    let folderPath = temp.appending("out")
    try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: false)
    try ArchiveUnpacker.unpack(FilePath(tar), into: FilePath(folderPath))
    #expect(try PackageNode(contentsOf: FilePath(folderPath + "/T")).difference(from: root).isEmpty)
  }
}
