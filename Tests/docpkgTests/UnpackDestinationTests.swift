import Foundation
import TestSupport
import Testing

/// `docpkg unpack ARCHIVE -o DESTDIR` with a DESTDIR that does not exist: made with its parents, as `unzip -d` makes
/// it, and not left behind when the unpack fails.
@Suite struct UnpackDestinationTests {
  @Test("a missing destination folder and its parents are made, as unzip -d makes them")
  func missingDestinationIsMade() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("src/pkg/a.txt", "hello\n")
    let archive = temp.appending("a.zip")
    try Shell.run("zip", ["-qr", archive, "pkg"], directory: temp.appending("src"))
    let destination = temp.appending("new/folder")
    let result = try Shell.docpkg(["unpack", archive, "-o", destination])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try String(contentsOfFile: destination + "/pkg/a.txt", encoding: .utf8) == "hello\n")
  }

  @Test("a failed unpack leaves no destination folder it made")
  func failedUnpackRemovesTheFoldersItMade() throws {
    let temp = try TemporaryDirectory()
    // A zip whose only entry climbs out of the destination: refused.
    let archive = temp.appending("bad.zip")
    try Shell.run(
      "python3",
      ["-c", "import zipfile; z = zipfile.ZipFile('\(archive)', 'w'); z.writestr('../evil.txt', 'x'); z.close()"])
    let result = try Shell.docpkg(["unpack", archive, "-o", temp.appending("new/folder")])
    #expect(result.status != 0)
    #expect(!FileManager.default.fileExists(atPath: temp.appending("new")))
  }

  @Test("an archive that cannot be read makes no folder")
  func unreadableArchiveMakesNoFolder() throws {
    let temp = try TemporaryDirectory()
    let result = try Shell.docpkg(["unpack", temp.appending("missing.zip"), "-o", temp.appending("new/folder")])
    #expect(result.status != 0)
    #expect(!FileManager.default.fileExists(atPath: temp.appending("new")))
  }
}
