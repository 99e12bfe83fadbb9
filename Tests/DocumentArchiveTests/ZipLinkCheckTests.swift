import Foundation
import TestSupport
import Testing

/// Issue 37: a zip's symbolic link is checked as its files are: a link whose CRC-32 does not match is refused
/// (as `unzip -t` and Python's `testzip` report it), and an encrypted link is refused (its target would be
/// ciphertext), as an encrypted file is.
@Suite("zip symbolic links: CRC and encryption", .enabled(if: Shell.has("python3") && Shell.has("zip")))
struct ZipLinkCheckTests {
  func run(_ script: String, in temp: TemporaryDirectory) throws {
    try Shell.run("bash", ["-c", script], directory: temp.path)
  }

  func expectRefused(_ archive: String, in temp: TemporaryDirectory, reason: String) throws {
    let out = try temp.makeDirectory("out")
    let result = try Shell.docpkg(["unpack", temp.appending(archive), "-o", out])
    #expect(result.status == 1)
    #expect(
      result.standardError.contains("'P.mydoc/link'") && result.standardError.contains(reason),
      "\(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(entries(below: out) == [])
    let listing = try Shell.docpkg(["inspect", temp.appending(archive)]).standardOutput
    #expect(listing.contains("[refused: \(reason)"), "\(listing)")
  }

  @Test("a link whose CRC-32 does not match (in its local header and its directory entry) is refused")
  func badCRC() throws {
    let temp = try TemporaryDirectory()
    try run(
      """
      python3 -c '
      import zipfile, zlib
      with zipfile.ZipFile("bad.zip", "w") as archive:
          archive.writestr("P.mydoc/a.txt", "hello\\n")
          link = zipfile.ZipInfo("P.mydoc/link")
          link.external_attr = 0o120777 << 16
          archive.writestr(link, "a.txt")
      data = open("bad.zip", "rb").read()
      good = zlib.crc32(b"a.txt").to_bytes(4, "little")
      assert data.count(good) == 2
      open("bad.zip", "wb").write(data.replace(good, b"\\xde\\xad\\xbe\\xef"))'
      unzip -tq bad.zip >/dev/null && exit 1 || true
      """, in: temp)
    try expectRefused("bad.zip", in: temp, reason: "its target's CRC-32 does not match")
  }

  @Test("a link encrypted with ZipCrypto beside files that are not is refused, not written as ciphertext")
  func encryptedLink() throws {
    let temp = try TemporaryDirectory()
    try run(
      """
      mkdir P.mydoc && echo hello > P.mydoc/a.txt && ln -s a.txt P.mydoc/link
      zip -q enc.zip P.mydoc P.mydoc/a.txt && zip -q -y -P secret enc.zip P.mydoc/link
      """, in: temp)
    try expectRefused("enc.zip", in: temp, reason: "its target is encrypted")
  }
}
