import CArchive
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

@Suite("reading archives in place")
struct ReadInPlaceTests {
  @Test("inspect lists an archive exactly as it lists the package", arguments: ["zip", "tar.gz", "tar.zst"])
  func inspectMatchesPackage(format: String) throws {
    let temp = try TemporaryDirectory()
    for fixture in ["Attributes.pkg", "Notes.mydoc"] {
      let package = try Fixtures.copy(fixture, into: temp)
      let archive = temp.appending("\(fixture).\(format)")
      try Shell.docpkgChecked(["pack", package, "-o", archive])
      for flags in [["--json"], []] {
        let fromArchive = try Shell.docpkgChecked(["inspect", archive] + flags).standardOutput
        let fromPackage = try Shell.docpkgChecked(["inspect", package] + flags).standardOutput
        #expect(fromArchive == fromPackage)
      }
    }
  }

  @Test("cat streams a file out of an archive made by another tool")
  func catFromArchive() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("notes.zip")
    try Shell.run("zip", ["-qry", archive, "Notes.mydoc"], directory: temp.path)
    for entry in ["Images/tram.png", "Text.txt", "Index.json"] {
      let bytes = try Shell.docpkgChecked(["cat", archive, entry]).stdout
      #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: package + "/" + entry))))
    }
    let missing = try Shell.docpkg(["cat", archive, "Nope.txt"])
    #expect(missing.status == 1 && missing.standardError.contains("Nope.txt"))
  }

  @Test(
    "reading every file in walk order is one pass over one open archive; other orders are still right",
    arguments: [ArchiveFormat.zip, .tarGzip])
  func onePass(format: ArchiveFormat) throws {
    let temp = try TemporaryDirectory()
    for index in 0..<300 {
      try temp.write(
        "Many.pkg/d\(index % 7)/f\(index).txt", "file \(index)\n" + String(repeating: "x", count: index * 50))
    }
    let archive = FilePath(temp.appending("many.archive"))
    try ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(temp.appending("Many.pkg"))), to: archive,
      options: PackOptions(format: format)
    )
    let root = try ArchivePackage.open(archive)
    var files: [(String, PackageNode)] = []
    try root.walk { node, path, _ in
      if node.kind == .file { files.append((path, node)) }
      return true
    }
    #expect(files.count == 300)
    for (path, node) in files {
      #expect(try node.contents() == Data(contentsOf: URL(fileURLWithPath: temp.appending("Many.pkg/" + path))))
    }
    if format == .zip {
      // A zip is read through its central directory: every file `pread`s one shared descriptor, in any order.
      let files = files.map(\.1)
      guard case .source(let first) = files[0].fileBody, let listed = first as? ZipListedEntrySource else {
        Issue.record("not read through the central directory")
        return
      }
      for node in files {
        guard case .source(let source) = node.fileBody else { continue }
        #expect((source as? ZipListedEntrySource)?.file === listed.file)
      }
      #expect(listed.allowsConcurrentReads)
      return
    }
    guard case .source(let source) = files[0].1.fileBody, let entry = source as? ArchiveEntrySource else {
      Issue.record("not an archive-backed node")
      return
    }
    #expect(entry.cursor.opens == 1)
    // Backwards: correct, and small entries passed over are served from the cache.
    for (path, node) in files.reversed().prefix(20) {
      #expect(try node.contents() == Data(contentsOf: URL(fileURLWithPath: temp.appending("Many.pkg/" + path))))
    }
    #expect(entry.cursor.opens == 2)
  }

  @Test("a damaged archive read in place fails with an error naming the entry")
  func damagedEntry() throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives("bad-crc", in: temp)
    let result = try Shell.docpkg(["cat", archives + "/bad-crc.zip", "a.txt"])
    #expect(result.status == 1)
    #expect(
      result.standardError.contains("'pkg/a.txt'") && result.standardError.contains("CRC"), "\(result.standardError)")
  }

  @Test("diff against a zip with a bad CRC fails with an error naming the entry, even when the bytes compare equal")
  func diffCatchesBadCRC() throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives("bad-crc", in: temp)
    // The same bytes as the damaged entry: only the CRC check can tell.
    let package = try temp.makeDirectory("pkg")
    let text = String(repeating: "all work and no play makes jack a dull boy\n", count: 100)
    try Data(text.utf8).write(to: URL(fileURLWithPath: package + "/a.txt"))
    let result = try Shell.docpkg(["diff", package, archives + "/bad-crc.zip"])
    #expect(result.status == 2, "\(result.standardOutput)")
    #expect(
      result.standardError.contains("'pkg/a.txt'") && result.standardError.contains("CRC"), "\(result.standardError)")
    // And through the library: reading the entry in place throws.
    let tree = try ArchivePackage.open(FilePath(archives + "/bad-crc.zip"))
    #expect(throws: PackageError.self) { try tree.node(at: "a.txt").contents() }
  }

  @Test("the CRC-32 libarchive checks with is zlib's function", arguments: [0, 1, 9, 63, 64, 65, 4096, 100_003])
  func crc32MatchesZlib(length: Int) throws {
    // Check values from Python's zlib (not ours), over a pattern, whole and in two pieces. This test
    // target links CFastCRC (as docpkg does), so `crc32` here is the interposed one.
    let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let expected = try Shell.run(
      "python3", ["-c", "import zlib; print(zlib.crc32(bytes((i * 31 + 7) & 255 for i in range(\(length)))))"]
    )
    .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    let whole = bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
    let split = bytes.withUnsafeBufferPointer { all in
      let half = all.count / 2
      let first = crc32(0, all.baseAddress, UInt32(half))
      return crc32(first, all.baseAddress.map { $0 + half }, UInt32(all.count - half))
    }
    #expect(String(whole) == expected)
    #expect(String(split) == expected)
    #expect(crc32(12345, nil, 0) == 0)  // zlib: a NULL buffer gives the initial value 0
  }

  @Test("docpkg's libarchive checks zip CRCs with libdeflate's crc32, not zlib's")
  func libarchiveUsesFastCRC() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("Notes.zip")
    try Shell.docpkgChecked(["pack", package, "-o", archive])
    // Unpacking reads the zip with libarchive, which docpkg opens on first use; the dynamic linker
    // reports where it binds libarchive's call to crc32. (Reading one entry in place no longer needs
    // libarchive, so `cat` would not open it.)
    let destination = try temp.makeDirectory("out")
    let result = try Shell.docpkg(
      ["unpack", archive, "-o", destination], environment: ["LD_DEBUG": "bindings"])
    #expect(result.status == 0, "\(result.standardError.suffix(500))")
    let bindings = result.standardError.split(separator: "\n").filter {
      $0.contains("libarchive") && $0.contains("`crc32'")
    }
    #expect(!bindings.isEmpty, "libarchive never called crc32")
    #expect(bindings.allSatisfy { !$0.contains("libz.so") }, "\(bindings)")
  }

  @Test(
    "reading in place and unpacking refuse the same entries with the same error",
    arguments: [
      "duplicate.zip", "directory-replaced-by-symlink.tar", "file-then-directory.tar", "write-through-symlink.tar",
      "device.tar", "fifo.tar", "hardlink-dotdot.tar", "dotdot.zip", "raw-byte-scalars.tar",
    ])
  func readingAndUnpackingAgree(archiveName: String) throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives(String(archiveName.split(separator: ".")[0]), in: temp)
    let archive = FilePath(archives + "/" + archiveName)
    let destination = try temp.makeDirectory("dest")
    var reading: PackageError?
    do { _ = try ArchivePackage.open(archive) } catch let error as PackageError { reading = error }
    var unpacking: PackageError?
    do { try ArchiveUnpacker.unpack(archive, into: FilePath(destination)) } catch let error as PackageError {
      unpacking = error
    }
    // One walk judges the entries for both: same code, same entry, same reason.
    #expect(
      reading != nil && reading == unpacking,
      "reading: \(String(describing: reading)); unpacking: \(String(describing: unpacking))")
  }

  /// fuzz-zip: a document zip whose `mimetype` has a bad CRC. Reading `content.xml` passes over
  /// `mimetype` and fails there; `mimetype` read next must fail too, not come back from the half-read
  /// handle as if whole.
  @Test("an entry whose read failed once fails again when read on its own")
  func aFailedReadFailsAgain() throws {
    let root = try PackageNode.open(
      location: Fixtures.fuzzRegression("zip-document-mimetype-bad-crc-tree-and-cat-disagree.odt").path)
    #expect(throws: PackageError.self) { try root.node(at: "content.xml").contents() }
    #expect(throws: PackageError.self) { try root.node(at: "mimetype").contents() }
  }

  /// fuzz-zip: the zip whose end record put its directory on "disk 146", with damaged data. Python, Go and unzip list
  /// it, and so do we: libarchive's listing and the central-directory tree name the same entries, and unpacking
  /// and `cat` refuse the damaged entry by name, writing nothing.
  @Test("the fuzzed zip whose directory is on another disk is listed by every reader, its damaged entry refused")
  func fuzzedOtherDiskZip() throws {
    let temp = try TemporaryDirectory()
    let archive = Fixtures.fuzzRegression("zip-end-record-central-directory-on-another-disk.zip").path
    let listed = try ArchiveListing.entries(of: FilePath(archive))
    #expect(listed.map(\.path).contains("Notes.mydoc/Index.json") && listed.allSatisfy { $0.refused == nil })
    if let tree = ArchivePackage.zipTree(of: FilePath(archive), unwrappingSingleDirectory: false) {
      for entry in listed { #expect((try? tree.node(at: entry.path)) != nil, "\(entry.path)") }
    }
    let unpacked = try Shell.docpkg(["unpack", archive, "-o", try temp.makeDirectory("dest")])
    let read = try Shell.docpkg(["cat", archive, "Index.json"])
    #expect(unpacked.status != 0 && read.status != 0)
    #expect(unpacked.standardError.contains("Index.json"), "\(unpacked.standardError)")
    #expect(read.standardError.contains("Index.json"), "\(read.standardError)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path + "/dest").isEmpty)
  }

  @Test("a zip cut short while libarchive reads it fails as changed since it was opened")
  func zipCutWhileRead() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("src/pkg/big.bin", Data(repeating: 7, count: 3 << 20))
    let zip = temp.appending("a.zip")
    try Shell.run("zip", ["-qr0", zip, "pkg"], directory: temp.appending("src"))
    let reader = try ArchiveReader(path: zip)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: zip))
    try handle.truncate(atOffset: 1 << 20)
    try handle.close()
    #expect {
      while try reader.next() != nil { try reader.readData { _, _ in } }
    } throws: { error in
      (error as? PackageError)?.code == .changedOnDisk && "\(error)".contains("a.zip")
    }
  }
}
