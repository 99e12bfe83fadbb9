import Foundation
import TestSupport
import Testing

/// Issue 37: times before 1970 in zips. The extended timestamp (0x5455) holds a signed 32-bit time: read
/// unsigned, 1960 came back as 2096. A zip we write holds a time before 1980 as 1980 in both its DOS field
/// and its extended timestamp (libarchive reads the latter unsigned), and we read the field signed.
@Suite("zip times before 1970", .enabled(if: Shell.has("python3")))
struct ZipOldTimeTests {
  /// 1960-06-30 13:20 UTC.
  static let before1970: Int64 = -300_000_000

  func modificationTime(_ path: String) throws -> Int64 {
    let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    return Int64(try #require(date).timeIntervalSince1970.rounded(.down))
  }

  @Test("a file of 1960 packed into a zip comes back as 1980, as the DOS field holds it, not as 2096")
  func packedBefore1980() throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("P.mydoc")
    let file = try temp.write("P.mydoc/old.txt", "old\n")
    try Shell.run("touch", ["-d", "@\(Self.before1970)", file])
    try Shell.docpkgChecked(["pack", package, "-o", temp.appending("p.zip")])
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", temp.appending("p.zip"), "-o", out])
    #expect(try modificationTime(out + "/P.mydoc/old.txt") == 315_532_800)
    if Shell.has("bsdtar") {
      let listing = try Shell.run("bsdtar", ["-tvf", temp.appending("p.zip")], environment: ["TZ": "UTC"])
      #expect(listing.standardOutput.contains("Jan  1  1980 P.mydoc/old.txt"), "\(listing.standardOutput)")
    }
  }

  @Test("an extended timestamp before 1970 written by another tool is read signed: 1960, not 2096")
  func readSigned() throws {
    let temp = try TemporaryDirectory()
    try Shell.run(
      "python3",
      [
        "-c",
        """
        import struct, zipfile
        with zipfile.ZipFile("old.zip", "w") as archive:
            info = zipfile.ZipInfo("P.mydoc/old.txt", (1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            info.extra = struct.pack("<HHBi", 0x5455, 5, 1, \(Self.before1970))
            archive.writestr(info, "old\\n")
        """,
      ], directory: temp.path)
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", temp.appending("old.zip"), "-o", out])
    #expect(try modificationTime(out + "/P.mydoc/old.txt") == Self.before1970)
  }
}
