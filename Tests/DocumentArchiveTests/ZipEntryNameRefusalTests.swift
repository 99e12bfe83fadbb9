import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37 (F9, F10): zip names no reader keeps as stored. Python's zipfile writes the zip; its
/// name bytes are then changed in both headers, as a broken or hostile writer leaves them.
@Suite("Zip entry names that cannot be kept", .enabled(if: Shell.has("python3")))
struct ZipEntryNameRefusalTests {
  /// A zip of `P/ok.txt` and `P/<name>`, whose name bytes are then replaced by `stored` (same length).
  private func makeZip(name: String, stored: String, in temp: TemporaryDirectory) throws -> String {
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], "w") as z:
          z.writestr("P/ok.txt", "ok")
          z.writestr("P/" + sys.argv[2], "x")
      data = open(sys.argv[1], "rb").read()
      name, stored = sys.argv[2].encode(), bytes.fromhex(sys.argv[3])
      assert len(name) == len(stored) and data.count(name) == 2
      open(sys.argv[1], "wb").write(data.replace(name, stored))
      """
    let archive = temp.appending("z.zip")
    let hex = Array(stored.unicodeScalars).map { String(format: "%02x", $0.value) }.joined()
    try Shell.run("python3", ["-c", script, archive, name, hex])
    return archive
  }

  /// F10: every reader cut `P/a<NUL>b.txt` to `P/a` and listed and wrote that, without a word.
  @Test func aNULInANameIsRefusedNamingTheEntry() throws {
    let temp = try TemporaryDirectory()
    let archive = try makeZip(name: "aXb.txt", stored: "a\u{0}b.txt", in: temp)
    let line =
      "refusing unsafe entry 'P/a\\u{0}b.txt' in '\(archive)': its name has a NUL byte, where other readers "
      + "cut the name\n"
    for command in [
      ["inspect", archive], ["cat", archive, "ok.txt"], ["unpack", archive, "-o", temp.appending("out")],
    ] {
      let result = try Shell.docpkg(command)
      #expect(result.status == 1, "\(command)")
      #expect(result.standardError == "docpkg: error: " + line, "\(command): \(result.standardError)")
    }
    #expect(!FileManager.default.fileExists(atPath: temp.appending("out")))
  }

  /// F9: a name marked UTF-8 that is not gave "cannot read header of 'z.zip' (Pathname cannot be converted from UTF-8
  /// to current locale.)", naming neither the entry nor the cause.
  @Test func aNameMarkedUTF8ThatIsNotIsRefusedSayingSo() throws {
    let temp = try TemporaryDirectory()
    // é (C3 A9) becomes C3 28: a lead byte without its continuation.
    let archive = try makeZip(name: "n\u{E9}.txt", stored: "n\u{C3}(.txt", in: temp)
    for command in [["inspect", archive], ["unpack", archive, "-o", temp.appending("out")]] {
      let result = try Shell.docpkg(command)
      #expect(result.status == 1, "\(command)")
      #expect(
        result.standardError
          == "docpkg: error: refusing unsafe entry 'P/n\\xC3(.txt' in '\(archive)': its name is marked as UTF-8 "
          + "(zip flag bit 11) but is not valid UTF-8\n", "\(command): \(result.standardError)")
    }
  }
}
