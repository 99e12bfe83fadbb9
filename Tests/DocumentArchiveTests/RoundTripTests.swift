import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("pack and unpack round trip")
struct RoundTripTests {
  static let formats = ["zip", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"]

  @Test(
    "directory → archive → directory keeps bytes, modes, links, empty directories, Unicode names, mtimes",
    arguments: formats)
  func roundTrip(format: String) throws {
    let temp = try TemporaryDirectory()
    for fixture in ["Attributes.pkg", "Notes.mydoc"] {
      let package = try Fixtures.copy(fixture, into: temp)
      let archive = temp.appending("\(fixture).\(format)")
      try Shell.docpkgChecked(["pack", package, "-o", archive])
      let out = try temp.makeDirectory("out-\(fixture)")
      let result = try Shell.docpkgChecked(["unpack", archive, "-o", out])
      #expect(result.standardOutput == "\(out)/\(fixture)\n")
      let original = try Listing.of(package)
      let restored = try Listing.of(out + "/" + fixture)
      #expect(restored == original)
      #expect(entries(below: out).allSatisfy { !$0.hasPrefix(".docpkg") })
    }
  }

  @Test("the library packs a tree made in memory, and unpacks it")
  func packInMemoryTree() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(directoryWithChildren: [:])
    try root.setFile(at: "Data/a.txt", contents: Data("hello".utf8))
    try root.setFile(at: "big.bin", contents: Data(repeating: 7, count: 3 << 20))
    try root.setNode(PackageNode(symbolicLinkWithDestination: "Data/a.txt"), at: "link")
    let parent = try PackageNode(directoryWithChildren: ["Made.mydoc": root])
    let made = try #require(try parent.child(named: "Made.mydoc"))
    let archive = FilePath(temp.appending("made.zip"))
    try ArchivePacker.pack(made, to: archive, options: PackOptions(format: .zip))
    try Shell.run("unzip", ["-tq", archive.string])
    let names = try ArchiveUnpacker.unpack(archive, into: FilePath(temp.path))
    #expect(names == ["Made.mydoc"])
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: temp.appending("Made.mydoc/big.bin")))
        == Data(repeating: 7, count: 3 << 20))
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: temp.appending("Made.mydoc/link")) == "Data/a.txt")
  }

  @Test("a file over the small-file limit is streamed, and incompressible data is stored")
  func largeFiles() throws {
    let temp = try TemporaryDirectory()
    var random = SystemRandomNumberGenerator()
    let noise = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
    try temp.write("Big.pkg/noise.bin", noise)
    try temp.write("Big.pkg/text.txt", String(repeating: "all work and no play\n", count: 200_000))
    let archive = temp.appending("big.zip")
    try Shell.docpkgChecked(["pack", temp.appending("Big.pkg"), "-o", archive])
    let listing = try Shell.run("unzip", ["-v", archive]).standardOutput
    #expect(listing.contains("Stored") && listing.contains("Defl:N"), "\(listing)")
    let size = try FileManager.default.attributesOfItem(atPath: archive)[.size] as! Int
    #expect(size < noise.count + 200_000)
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out])
    #expect(try Listing.of(out + "/Big.pkg") == Listing.of(temp.appending("Big.pkg")))
  }

  @Test("unpack refuses to replace an existing package without --force, and replaces it with --force")
  func replaceOnlyWithForce() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("notes.zip")
    try Shell.docpkgChecked(["pack", package, "-o", archive])
    let out = try temp.makeDirectory("out")
    try temp.write("out/Notes.mydoc/old.txt", "old")
    let refused = try Shell.docpkg(["unpack", archive, "-o", out])
    #expect(refused.status == 1)
    #expect(refused.standardError.contains("already exists") && refused.standardError.contains("Notes.mydoc"))
    #expect(FileManager.default.fileExists(atPath: temp.appending("out/Notes.mydoc/old.txt")))
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--force"])
    #expect(!FileManager.default.fileExists(atPath: temp.appending("out/Notes.mydoc/old.txt")))
    #expect(try Listing.of(out + "/Notes.mydoc") == Listing.of(package))
    #expect(entries(below: out).allSatisfy { !$0.hasPrefix(".docpkg") })
  }

  @Test(
    "unpack --force replaces a package holding names that are not UTF-8, and leaves nothing behind",
    .enabled(if: Shell.has("python3")))
  func forceReplacesNonUTF8Names() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("notes.zip")
    try Shell.docpkgChecked(["pack", package, "-o", archive])
    let out = try temp.makeDirectory("out")
    let make =
      "import os; os.makedirs(b'out/Notes.mydoc/sub'); open(b'out/Notes.mydoc/sub/\\xff.txt','wb').write(b'old')"
    try Shell.run("python3", ["-c", make], directory: temp.path)
    let result = try Shell.docpkg(["unpack", archive, "-o", out, "--force"])
    #expect(result.status == 0, "\(result.standardError)")
    // The old package (swapped into the temporary folder) is removed with its raw names: no
    // temporary folder is left in OUT, and the new package is exactly the archive's.
    let list = "import os; print(sorted(n.decode('latin-1') for n in os.listdir(b'out')))"
    #expect(try Shell.run("python3", ["-c", list], directory: temp.path).standardOutput == "['Notes.mydoc']\n")
    #expect(try Listing.of(out + "/Notes.mydoc") == Listing.of(package))
  }
}
