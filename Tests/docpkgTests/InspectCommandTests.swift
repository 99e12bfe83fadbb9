import DocumentPackage
import Foundation
import TestSupport
import Testing

@Suite("docpkg inspect and cat")
struct InspectCommandTests {
  @Test func inspectJSONListsEveryEntryWithTotals() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let result = try Shell.docpkg(["inspect", package, "--json"])
    #expect(result.status == 0, "\(result.standardError)")
    let json = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
    let entries = json["entries"] as! [[String: Any]]
    let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0["path"] as! String, $0) })
    #expect(
      entries.map { $0["path"] as! String } == [
        "Café ☕.txt", "Empty", "Nested", "Nested/Empty", "README.txt", "bin", "bin/private.key", "bin/run.sh",
        "bin-link", "dangling", "readme-link", "日本語", "日本語/ノート.txt",
      ])
    #expect(byPath["bin/run.sh"]?["mode"] as? String == "0755")
    #expect(byPath["bin/run.sh"]?["kind"] as? String == "file")
    #expect(byPath["bin/run.sh"]?["size"] as? Int == 23)
    #expect(byPath["readme-link"]?["target"] as? String == "README.txt")
    #expect(byPath["readme-link"]?["kind"] as? String == "symlink")
    #expect(byPath["Nested"]?["mode"] as? String == "0750")
    #expect(json["files"] as? Int == 5)
    #expect(json["directories"] as? Int == 5)
    #expect(json["symlinks"] as? Int == 3)
    #expect(json["bytes"] as? Int == 37 + 23 + 17 + 19 + 16)
  }

  /// Issue 38: one shape of an entry in JSON. What `inspect --json` writes for a package and for an archive (with
  /// a FIFO and an entry `unpack` refuses) is what the library's ``EntrySummary`` encodes, as `serve` sends it:
  /// each item decodes as one, and encoding that again gives the same bytes (sorted keys).
  @Test func inspectJSONEntriesAreTheOneEntryShape() throws {
    struct Listing: Decodable { var entries: [EntrySummary] }
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let make = """
      import io, tarfile
      with tarfile.open('odd.tar', 'w') as t:
          for name, kind in (('P/a "q"\\.txt', tarfile.REGTYPE), ('P/fifo', tarfile.FIFOTYPE), ('P/up', tarfile.SYMTYPE)):
              info = tarfile.TarInfo(name); info.type = kind; info.mode = 0o640
              if kind == tarfile.SYMTYPE: info.linkname = '../../outside'
              t.addfile(info, io.BytesIO(b'') if kind == tarfile.REGTYPE else None)
      """
    try Shell.run("python3", ["-c", make], directory: temp.path)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for listed in [package, temp.appending("odd.tar")] {
      let result = try Shell.docpkg(["inspect", listed, "--json"])
      #expect(result.status == 0, "\(result.standardError)")
      let entries = try JSONDecoder().decode(Listing.self, from: result.stdout).entries
      #expect(entries.count >= 3, "\(result.standardOutput)")
      let lines = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("{\"kind\"") }
      #expect(lines.count == entries.count)
      for (line, entry) in zip(lines, entries) {
        let written = String(line.hasSuffix(",") ? line.dropLast() : line)
        #expect(String(decoding: try encoder.encode(entry), as: UTF8.self) == written)
      }
      if listed.hasSuffix(".tar") {
        #expect(entries.contains { $0.kind == "special" && $0.special == "FIFO" }, "\(entries)")
        #expect(entries.contains { $0.path == "P/up" && $0.refused != nil && $0.target == "../../outside" })
      }
    }
  }

  @Test func inspectShowsATreeAndTotals() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let result = try Shell.docpkg(["inspect", package])
    #expect(result.status == 0)
    #expect(
      result.standardOutput == """
        directory 0755               -  Notes.mydoc/
        directory 0755               -  ├── Images/
        file      0644             306  │   └── tram.png
        file      0644             181  ├── Index.json
        directory 0755               -  ├── QuickLook/
        file      0644             177  │   └── Thumbnail.png
        file      0644             374  └── Text.txt

        4 files, 2 directories, 0 symlinks, 1,038 bytes

        """)
  }

  @Test func depthLimitsTheListingButNotTheTotals() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let result = try Shell.docpkg(["inspect", package, "--json", "--depth", "1"])
    let json = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
    #expect(
      (json["entries"] as! [[String: Any]]).map { $0["path"] as! String } == [
        "Images", "Index.json", "QuickLook", "Text.txt",
      ])
    #expect(json["files"] as? Int == 4)
  }

  @Test func controlCharactersInNamesAreEscapedInHumanOutput() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Evil.pkg/\u{1B}[31mred\u{07}.txt", "x")
    let human = try Shell.docpkg(["inspect", temp.appending("Evil.pkg")])
    #expect(!human.stdout.contains(0x1B))
    #expect(!human.stdout.contains(0x07))
    #expect(human.standardOutput.contains("\\u{1B}[31mred\\u{7}.txt"))
    let json = try Shell.docpkg(["inspect", "--json", temp.appending("Evil.pkg")])
    let parsed = try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any]
    #expect((parsed["entries"] as! [[String: Any]])[0]["path"] as? String == "\u{1B}[31mred\u{07}.txt")
  }

  @Test func inspectOfAFileFailsBeforeWritingAnything() throws {
    let temp = try TemporaryDirectory()
    let file = try temp.write("plain.txt", "not a package")
    for arguments in [["inspect", file], ["inspect", "--json", file]] {
      let result = try Shell.docpkg(arguments)
      #expect(result.status == 1)
      #expect(result.stdout.isEmpty)
      #expect(
        result.standardError
          == "docpkg: error: not a package or an archive: '\(file)' (it is a file, not a directory, a zip or a tar)\n")
    }
  }

  @Test func usageErrorsAreOneLineToo() throws {
    let result = try Shell.docpkg(["inspect", "--depth", "many"])
    #expect(result.status == 64)
    #expect(result.standardError.hasPrefix("docpkg: error: "))
    #expect(result.standardError.split(separator: "\n").count == 1)
  }

  @Test func aNegativeDepthIsRefusedAsOne() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    // Not "Missing value for '--depth <depth>'": -1 is the value given, not an option.
    let result = try Shell.docpkg(["inspect", package, "--depth", "-1"])
    #expect(result.status == 64)
    #expect(result.standardError == "docpkg: error: --depth must be 0 or more (see 'docpkg inspect --help')\n")
  }

  @Test func catWritesTheBytesOfOneFile() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let result = try Shell.docpkg(["cat", package, "Images/tram.png"])
    #expect(result.status == 0)
    #expect(result.stdout == (try Data(contentsOf: URL(fileURLWithPath: package + "/Images/tram.png"))))
  }

  @Test(arguments: [
    (["cat", "PKG", "Images"], "docpkg: error: not a regular file: 'Images' (it is a directory)\n"),
    (["cat", "PKG", "Nope/x.txt"], "docpkg: error: no such entry 'Nope' in 'PKG'\n"),
    (
      ["cat", "PKG", "Text.txt/x"], "docpkg: error: not a directory: 'Text.txt' (on the way to 'Text.txt/x') in 'PKG'\n"
    ),
    (["inspect", "PKG/missing.mydoc"], "docpkg: error: no such package 'PKG/missing.mydoc'\n"),
  ])
  func badInputGivesOneLineErrorAndNonZeroExit(arguments: [String], message: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let result = try Shell.docpkg(arguments.map { $0.replacingOccurrences(of: "PKG", with: package) })
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(result.standardError == message.replacingOccurrences(of: "PKG", with: package))
  }

  @Test func catOpensOnlyTheDirectoriesOnThePath() throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let temp = try TemporaryDirectory()
    for directory in 0..<30 {
      for file in 0..<10 { try temp.write("Many.pkg/d\(directory)/f\(file).txt", "\(directory)/\(file)") }
    }
    let (result, calls) = try Shell.traceDocpkg(
      ["cat", temp.appending("Many.pkg"), "d17/f4.txt"], calls: "openat,open,openat2")
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "17/4")
    // Entries below the root are opened relative to it (openat2 beneath it): their paths are relative.
    let package = temp.appending("Many.pkg")
    let opened = calls.filter { !$0.contains("ENOENT") }
      .compactMap { line in line.split(separator: "\"").dropFirst().first.map(String.init) }
      .compactMap { path in
        path.hasPrefix("/") ? (path.hasPrefix(package) ? path : nil) : package + "/" + path
      }
    #expect(Set(opened).isSubset(of: [package, package + "/d17", package + "/d17/f4.txt"]), "\(opened)")
    #expect(opened.contains(package + "/d17/f4.txt"), "\(opened)")
  }

  /// Peak RSS in KiB of `docpkg inspect PACKAGE`, its output thrown away, as GNU time reports it.
  private func inspectPeakKiB(_ package: String, in temp: TemporaryDirectory) throws -> Int {
    let report = temp.appending("time-\(UUID().uuidString)")
    try Shell.run(
      "/bin/sh",
      [
        "-c", "/usr/bin/time -f %M -o \"$1\" \"$2\" inspect \"$3\" > /dev/null", "sh", report, Shell.docpkgPath,
        package,
      ])
    return Int(try String(contentsOfFile: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))!
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
  func inspectMemoryDoesNotGrowWithThePackage() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("Small.pkg/d0/f0.txt", "x")
    let big = temp.appending("Big.pkg")
    let script = """
      import os, sys
      for d in range(100):
          os.makedirs(f"{sys.argv[1]}/d{d}")
          for f in range(100):
              open(f"{sys.argv[1]}/d{d}/file-with-a-longer-name-{f}.txt", "w").write("x")
      """
    try Shell.run("python3", ["-c", script, big])
    let small = try inspectPeakKiB(temp.appending("Small.pkg"), in: temp)
    let large = try inspectPeakKiB(big, in: temp)
    // Streamed: the 10,000 entries are printed as the walk goes and dropped, never all held (5.3 MiB more
    // than for the one-file package before, in a release build; 1 to 2 MiB more now).
    #expect(large - small < 3584, "peak RSS \(large) KiB for 10,000 files vs \(small) KiB for one")
  }
}
