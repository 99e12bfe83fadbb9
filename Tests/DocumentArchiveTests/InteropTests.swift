import Foundation
import TestSupport
import Testing

@Suite("archives shared with other tools")
struct InteropTests {
  @Test("our zip passes unzip -t, and unzip, Python's zipfile and bsdtar read what we packed")
  func ourZipReadByPeers() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let archive = temp.appending("a.zip")
    try Shell.docpkgChecked(["pack", package, "-o", archive])
    try Shell.run("unzip", ["-tq", archive])
    #expect(try Listing.of(archive, mtimes: false) == Listing.of(package, mtimes: false))
    let unzipped = try temp.makeDirectory("unzip")
    try Shell.run("unzip", ["-q", archive, "-d", unzipped])
    #expect(try Listing.of(unzipped + "/Attributes.pkg", linkMTimes: false) == Listing.of(package, linkMTimes: false))
    let bsdtar = try temp.makeDirectory("bsdtar")
    try Shell.run("bsdtar", ["-xf", archive, "-C", bsdtar])
    #expect(try Listing.of(bsdtar + "/Attributes.pkg") == Listing.of(package))
  }

  @Test("our tars are read by Python's tarfile and bsdtar", arguments: ["tar", "tar.gz", "tar.xz", "tar.zst"])
  func ourTarReadByPeers(format: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let archive = temp.appending("a.\(format)")
    try Shell.docpkgChecked(["pack", package, "-o", archive])
    if format != "tar.zst" { #expect(try Listing.of(archive) == Listing.of(package)) }
    let bsdtar = try temp.makeDirectory("bsdtar")
    try Shell.run("bsdtar", ["-xpf", archive, "-C", bsdtar])
    #expect(try Listing.of(bsdtar + "/Attributes.pkg") == Listing.of(package))
  }

  @Test(
    "archives made by zip, Python and bsdtar unpack to the tree they were made from",
    arguments: ["zip -ry", "python-zip", "bsdtar-zip", "bsdtar-tgz", "python-tar"])
  func theirArchivesReadByUs(maker: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let isZip = maker.contains("zip")
    let archive = temp.appending(isZip ? "theirs.zip" : "theirs.tar.gz")
    switch maker {
    case "zip -ry": try Shell.run("zip", ["-qry", archive, "Attributes.pkg"], directory: temp.path)
    case "bsdtar-zip":
      try Shell.run("bsdtar", ["--format", "zip", "-cf", archive, "Attributes.pkg"], directory: temp.path)
    case "bsdtar-tgz": try Shell.run("bsdtar", ["-czf", archive, "Attributes.pkg"], directory: temp.path)
    case "python-tar":
      try Shell.run(
        "python3", ["-c", "import tarfile; t=tarfile.open('\(archive)','w:gz'); t.add('Attributes.pkg'); t.close()"],
        directory: temp.path)
    default:
      // zipfile keeps modes and links only when told: store each link as a link, each file with its mode.
      let script = """
        import os, stat, zipfile
        z = zipfile.ZipFile('\(archive)', 'w', zipfile.ZIP_DEFLATED)
        for d, dirs, files in os.walk('Attributes.pkg'):
            for n in [''] + dirs + files:
                p = os.path.join(d, n) if n else d
                if not n and d != 'Attributes.pkg': continue
                st = os.lstat(p)
                if stat.S_ISLNK(st.st_mode):
                    i = zipfile.ZipInfo(p); i.external_attr = st.st_mode << 16; z.writestr(i, os.readlink(p))
                else:
                    z.write(p)
        z.close()
        """
      try Shell.run("python3", ["-c", script], directory: temp.path)
    }
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out])
    // zip makers record the local time of day in DOS fields when they add no timestamp field; compare mtimes for tars.
    let mtimes = !maker.hasPrefix("python-zip")
    #expect(try Listing.of(out + "/Attributes.pkg", mtimes: mtimes) == Listing.of(package, mtimes: mtimes))
  }

  @Test("a tar of a folder's contents (`tar -C DIR -cf X.tar .`, its root `./` first) reads in place")
  func tarOfFolderContentsReadsInPlace() throws {
    let temp = try TemporaryDirectory()
    let folder = try temp.makeDirectory("folder")
    try FileManager.default.createDirectory(atPath: folder + "/a", withIntermediateDirectories: true)
    try Data("top\n".utf8).write(to: URL(fileURLWithPath: folder + "/f.txt"))
    try Data("below\n".utf8).write(to: URL(fileURLWithPath: folder + "/a/g.txt"))
    let archive = temp.appending("contents.tar")
    try Shell.run("tar", ["-C", folder, "-cf", archive, "."])
    #expect(try Shell.docpkgChecked(["cat", archive, "f.txt"]).standardOutput == "top\n")
    #expect(try Shell.docpkgChecked(["cat", archive, "a/g.txt"]).standardOutput == "below\n")
  }

  @Test("a zip Info-ZIP wrote from standard input (zip64 records, real values in the end record) lists and unpacks")
  func zipFromStandardInput() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("a.zip")
    try Shell.run("zip", ["-q", archive, "-"], input: Data("hi\n".utf8))
    let records = try Data(contentsOf: URL(fileURLWithPath: archive))
    #expect(records.range(of: Data([0x50, 0x4B, 0x06, 0x07])) != nil, "zip wrote no zip64 locator")
    let listing = try Shell.docpkgChecked(["inspect", archive])
    #expect(listing.standardOutput.contains("-"))
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out])
    #expect(try String(contentsOfFile: out + "/-", encoding: .utf8) == "hi\n")
  }
}
