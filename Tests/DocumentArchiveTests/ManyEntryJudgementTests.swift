import Foundation
import TestSupport
import Testing

/// Issue 40: the walk keeps the paths it accepted in a compact table rather than a dictionary of whole paths. A tar
/// of 2,000 files spread over 400 folders (the table grows several times, and consecutive entries lie in different
/// folders) ends with one more entry, judged against all of them: by `unpack`, and by `inspect` reading in place.
@Suite("archive walk: the last of 2,000 entries judged against all of them", .enabled(if: Shell.has("python3")))
struct ManyEntryJudgementTests {
  /// Writes `many.tar`: `pkg/dNNN/fK.txt` holding `I\n` for entry I, `pkg/d001/café.txt` (NFC) among them, then
  /// the entry `last` describes (a Python expression adding to the tar `t`).
  private func makeTar(last: String, in temp: TemporaryDirectory) throws -> String {
    let script = """
      import io, tarfile
      def add(t, name, data=None, mode=0o644, kind=tarfile.REGTYPE, link=""):
          info = tarfile.TarInfo(name)
          info.mode, info.mtime, info.type, info.linkname = mode, 1700000000, kind, link
          if data is not None:
              info.size = len(data)
          t.addfile(info, io.BytesIO(data) if data is not None else None)
      with tarfile.open("many.tar", "w", format=tarfile.PAX_FORMAT) as t:
          for i in range(2000):
              add(t, "pkg/d%03d/f%d.txt" % (i % 400, i // 400), b"%d\\n" % i)
              if i == 1000:
                  add(t, "pkg/d001/caf\\u00e9.txt", b"nfc\\n")
          \(last)
      """
    try Shell.run("python3", ["-c", script], directory: temp.path)
    return temp.appending("many.tar")
  }

  @Test(
    "a refused last entry is refused by unpack and marked by inspect",
    arguments: [
      // The same path again, with other bytes of the same size.
      ("add(t, 'pkg/d007/f1.txt', b'XYZ\\n')", "a second entry has the same path"),
      // The same name spelled decomposed (e + U+0301): canonically equivalent, so the same path.
      ("add(t, 'pkg/d001/cafe\\u0301.txt', b'nfd\\n')", "a second entry has the same path"),
      // Below a file recorded 1,600 entries before.
      ("add(t, 'pkg/d123/f2.txt/x', b'x\\n')", "'pkg/d123/f2.txt' is a file, not a directory"),
      // Through a symbolic link, with other folders' entries between.
      (
        "add(t, 'pkg/l', kind=tarfile.SYMTYPE, link='d005'); add(t, 'pkg/d006/g', b'g'); add(t, 'pkg/l/x', b'x')",
        "it would be written through the symbolic link 'pkg/l'"
      ),
      // A hard link to a folder.
      ("add(t, 'pkg/h', kind=tarfile.LNKTYPE, link='pkg/d009')", "which is not a file before it"),
    ])
  func refusedLastEntry(last: String, reason: String) throws {
    let temp = try TemporaryDirectory()
    let archive = try makeTar(last: last, in: temp)
    let unpacked = try Shell.docpkg(["unpack", archive, "-o", temp.appending("out"), "--quiet"])
    #expect(unpacked.status == 1)
    #expect(unpacked.standardError.contains(reason), "\(unpacked.standardError)")
    let inspected = try Shell.docpkg(["inspect", archive])
    #expect(inspected.standardOutput.contains(reason), "\(inspected.standardOutput)\(inspected.standardError)")
  }

  @Test("an identical file appended again, a folder described again and a hard link by another spelling are accepted")
  func acceptedLastEntries() throws {
    let temp = try TemporaryDirectory()
    let archive = try makeTar(
      last: """
        add(t, 'pkg/d007/f1.txt', b'407\\n', mode=0o600); add(t, 'pkg/d123/', mode=0o700, kind=tarfile.DIRTYPE)
            add(t, 'pkg/h', kind=tarfile.LNKTYPE, link='pkg/d001/cafe\\u0301.txt')
        """, in: temp)
    let out = temp.appending("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    let mode = { (path: String) in
      try Shell.run("stat", ["-c", "%a", path], directory: out).standardOutput
    }
    #expect(try mode("pkg/d007/f1.txt") == "600\n")
    #expect(try mode("pkg/d123") == "700\n")
    #expect(try String(contentsOfFile: out + "/pkg/h", encoding: .utf8) == "nfc\n")
    #expect(try String(contentsOfFile: out + "/pkg/d399/f4.txt", encoding: .utf8) == "1999\n")
    // Read in place, the archive is the folder unpacked from it.
    let diff = try Shell.docpkg(["diff", archive, out + "/pkg"])
    #expect(diff.status == 0, "\(diff.standardOutput)\(diff.standardError)")
  }
}
