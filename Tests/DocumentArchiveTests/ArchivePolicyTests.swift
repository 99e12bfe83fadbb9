import Foundation
import TestSupport
import Testing

/// Issue 10: what real tools write and is harmless is accepted (archives made at test time by bsdtar and
/// Python's zipfile); the hostile suite keeps what is refused.
@Suite("archive policy: harmless archives other tools write")
struct ArchivePolicyTests {
  @Test(.enabled(if: Shell.has("bsdtar")))
  func topLevelLinkToASiblingIsExtracted() throws {
    let temp = try TemporaryDirectory()
    let source = try temp.makeDirectory("source")
    _ = try temp.write("source/small.txt", "small")
    _ = try temp.symlink("source/link.txt", to: "small.txt")
    let archive = temp.appending("links.tar")
    try Shell.run("bsdtar", ["-cf", archive, "small.txt", "link.txt"], directory: source)
    let out = try temp.makeDirectory("out")
    let result = try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    #expect(result.standardOutput == "\(out)/small.txt\n\(out)/link.txt\n")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/link.txt") == "small.txt")
    #expect(try String(contentsOfFile: out + "/link.txt", encoding: .utf8) == "small")
  }

  @Test(.enabled(if: Shell.has("python3")))
  func duplicateDirectoryEntriesAreAccepted() throws {
    let temp = try TemporaryDirectory()
    let make = """
      import zipfile
      with zipfile.ZipFile('dirs.zip', 'w') as z:
          z.writestr('pkg/', b''); z.writestr('pkg/a/', b''); z.writestr('pkg/a/', b''); z.writestr('pkg/a/f.txt', b'f')
      """
    try Shell.run("python3", ["-c", make], directory: temp.path)
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", temp.appending("dirs.zip"), "-o", out, "--quiet"])
    #expect(try String(contentsOfFile: out + "/pkg/a/f.txt", encoding: .utf8) == "f")
    let listing = try Shell.docpkgChecked(["inspect", temp.appending("dirs.zip")]).standardOutput
    #expect(listing.contains("f.txt"))
  }
}

extension ArchivePolicyTests {
  @Test(
    "unpack refuses special files by default; --skip-special leaves them out and names them on stderr",
    arguments: ["fifo.tar", "device.tar"])
  func specialFilesSkippedOnRequest(archiveName: String) throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives(String(archiveName.split(separator: ".")[0]), in: temp)
    let out = try temp.makeDirectory("out")
    let refused = try Shell.docpkg(["unpack", archives + "/" + archiveName, "-o", out])
    #expect(refused.status == 1)
    let result = try Shell.docpkg(["unpack", archives + "/" + archiveName, "-o", out, "--skip-special", "--quiet"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "\(out)/pkg\n")
    let special = archiveName == "fifo.tar" ? "'pkg/pipe': it is a FIFO" : "'pkg/null': it is a character device"
    #expect(result.standardError == "docpkg: skipped \(special)\n")
    #expect(entries(below: out) == ["pkg"])
  }
}

extension ArchivePolicyTests {
  @Test("inspect lists every entry of an archive unpack would refuse, marking the refused ones and why")
  func inspectMarksRefusedEntries() throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives("fifo", "duplicate", in: temp)
    var result = try Shell.docpkgChecked(["inspect", archives + "/fifo.tar"])
    #expect(
      result.standardOutput == """
        directory 0755               -  pkg/
        special   0644               0  pkg/pipe  [refused: it is a FIFO; only files, directories and links are accepted]

        0 files, 1 directory, 0 symlinks, 0 bytes; 1 refused

        """)
    result = try Shell.docpkgChecked(["inspect", archives + "/duplicate.zip", "--json"])
    let json = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
    let entries = try #require(json?["entries"] as? [[String: Any]])
    #expect(entries.map { $0["path"] as? String } == ["pkg", "pkg/a.txt", "pkg/a.txt"])
    #expect(entries.map { $0["refused"] as? String } == [nil, nil, "a second entry has the same path"])
    #expect(json?["refused"] as? Int == 1)
  }
}

extension ArchivePolicyTests {
  @Test("a pax archive with several extended headers for one entry is read, the last one winning")
  func severalPaxHeadersLastWins() throws {
    let temp = try TemporaryDirectory()
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", Fixtures.url("pax-several-headers.tar").path, "-o", out, "--quiet"])
    #expect(entries(below: out) == ["pkg", "pkg/second.txt"])
    #expect(try String(contentsOfFile: out + "/pkg/second.txt", encoding: .utf8) == "second\n")
  }

  @Test("inspect marks a pax path with a NUL byte, which unpack refuses")
  func paxPathWithNULIsMarked() throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives("pax-nul-in-path", in: temp)
    let listing = try Shell.docpkgChecked(["inspect", archives + "/pax-nul-in-path.tar"]).standardOutput
    #expect(listing.contains("pkg/a.txt  [refused: its pax header's path has a NUL byte"), "\(listing)")
  }
}

extension ArchivePolicyTests {
  @Test("a file appended twice with identical bytes (tar -r) is accepted; different bytes stay refused")
  func identicalDuplicateFilesAreAccepted() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("pkg/a.txt", "same bytes\n")
    let archive = temp.appending("twice.tar")
    try Shell.run("tar", ["-cf", archive, "pkg"], directory: temp.path)
    try Shell.run("tar", ["-rf", archive, "pkg/a.txt"], directory: temp.path)
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    #expect(try String(contentsOfFile: out + "/pkg/a.txt", encoding: .utf8) == "same bytes\n")
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("a.txt") && !listing.contains("refused"), "\(listing)")
    // Now the second copy differs.
    _ = try temp.write("pkg/a.txt", "SAME BYTES\n")  // same size, other bytes
    try Shell.run("tar", ["-rf", archive, "pkg/a.txt"], directory: temp.path)
    let refused = try Shell.docpkg(["unpack", archive, "-o", try temp.makeDirectory("out2")])
    #expect(refused.status == 1)
    #expect(refused.standardError.contains("a second entry has the same path"), "\(refused.standardError)")
  }
}

extension ArchivePolicyTests {
  @Test("inspect marks a symbolic link that unpack would refuse")
  func inspectMarksEscapingLinks() throws {
    let temp = try TemporaryDirectory()
    let archives = try makeHostileArchives("symlink-escape", in: temp)
    let listing = try Shell.docpkgChecked(["inspect", archives + "/symlink-escape.zip"]).standardOutput
    #expect(listing.contains("pkg/escape -> ../../outside  [refused: it points outside the package]"), "\(listing)")
  }
}
