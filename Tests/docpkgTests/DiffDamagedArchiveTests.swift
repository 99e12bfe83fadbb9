import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37 (F14): `diff` of a zip whose entry fails its CRC-32 said `M` (the entry modified)
/// when the archive was the new side or the sizes differed: it stopped reading at the first difference, or read
/// nothing, and never reached the check. `cat` and `unpack` refuse that entry; so does `diff` now.
@Suite("docpkg diff of a damaged archive", .enabled(if: Shell.has("zip") && Shell.has("python3")))
struct DiffDamagedArchiveTests {
  /// `P/a.txt` ("hello world") zipped stored by Info-ZIP, then its first data byte changed: a bad CRC-32.
  private func makeArchive(in temp: TemporaryDirectory) throws -> String {
    _ = try temp.write("P/a.txt", "hello world\n")
    _ = try temp.write("P/b.txt", "other\n")
    try Shell.run("zip", ["-q", "-0", "-r", "good.zip", "P"], directory: temp.path)
    let script = """
      import sys
      data = bytearray(open(sys.argv[1], "rb").read())
      data[data.index(b"hello world")] = ord("j")
      open(sys.argv[2], "wb").write(data)
      """
    try Shell.run("python3", ["-c", script, temp.appending("good.zip"), temp.appending("bad.zip")])
    return temp.appending("bad.zip")
  }

  @Test(arguments: [
    ("jello world\n", false), ("jello world\n", true), ("hello world, longer\n", false),
    ("hello world, longer\n", true),
  ])
  func aBadCRCFailsTheDiffWhicheverSideAndSize(folderText: String, archiveIsNew: Bool) throws {
    let temp = try TemporaryDirectory()
    let archive = try makeArchive(in: temp)
    _ = try temp.write("Q/a.txt", folderText)
    _ = try temp.write("Q/b.txt", "other\n")
    let folder = temp.appending("Q")
    let result = try Shell.docpkg(["diff"] + (archiveIsNew ? [folder, archive] : [archive, folder]))
    #expect(result.status == 2, "\(result.standardOutput)")
    #expect(result.stdout.isEmpty, "\(result.standardOutput)")
    #expect(
      result.standardError
        == "docpkg: error: cannot read data of entry 'P/a.txt' in '\(archive)': its CRC-32 does not match\n")
  }

  @Test func anUndamagedArchiveStillDiffsAsBefore() throws {
    let temp = try TemporaryDirectory()
    _ = try makeArchive(in: temp)
    _ = try temp.write("Q/a.txt", "hello world, longer\n")
    _ = try temp.write("Q/b.txt", "other\n")
    let result = try Shell.docpkg(["diff", temp.appending("good.zip"), temp.appending("Q")])
    #expect(result.status == 1)
    #expect(result.standardOutput == "M    a.txt  12 → 20 bytes\n1 change: 1 modified\n", "\(result.standardOutput)")
  }
}
