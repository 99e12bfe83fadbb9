import Foundation
import TestSupport
import Testing

/// A second entry for a file with the same bytes (issue 37): `tar -rf` appends one to change a file's mode or time,
/// and GNU tar, bsdtar, Python, 7z and unzip apply the last header's. We kept the first, so that tightening a
/// file's permissions with `tar -rf` left it open when unpacked, and `diff` against the folder it came from differed.
@Suite("Duplicate entries with identical bytes", .enabled(if: Shell.has("python3") && Shell.has("tar")))
struct DuplicateEntryTests {
  /// `stat -c '%a %Y'` of `path` below `directory`.
  private func modeAndTime(_ path: String, in directory: String) throws -> String {
    try Shell.run("stat", ["-c", "%a %Y", path], directory: directory).standardOutput
  }

  @Test func tarUpdatedWithTarRfGetsTheLastModeAndTime() throws {
    let temp = try TemporaryDirectory()
    let setup = """
      set -e
      mkdir P; echo secret > P/key; chmod 644 P/key; touch -d @1609459200 P/key; tar -cf x.tar P
      chmod 600 P/key; touch -d @1643760000 P/key; tar -rf x.tar P/key
      """
    try Shell.run("sh", ["-c", setup], directory: temp.path)
    let unpacked = try Shell.docpkg(["unpack", temp.appending("x.tar"), "-o", temp.appending("u"), "--quiet"])
    #expect(unpacked.status == 0, "\(unpacked.standardError)")
    #expect(try modeAndTime("u/P/key", in: temp.path) == "600 1643760000\n")
    // Read in place, the archive is the folder it was made from.
    let diff = try Shell.docpkg(["diff", temp.appending("x.tar"), temp.appending("P"), "--times"])
    #expect(diff.status == 0, "\(diff.standardOutput)\(diff.standardError)")
    let inspected = try Shell.docpkg(["inspect", temp.appending("x.tar")])
    #expect(inspected.standardOutput.contains("0600"), "\(inspected.standardOutput)")
    #expect(!inspected.standardOutput.contains("0644"), "\(inspected.standardOutput)")
  }

  @Test func pythonTarAndZipGetTheLastMode() throws {
    let temp = try TemporaryDirectory()
    let script = """
      import io, sys, tarfile, warnings, zipfile
      warnings.simplefilter("ignore")
      with tarfile.open("d.tar", "w") as t:
          for name, mode, time in (("D/a", 0o644, 1000000000), ("D/a", 0o755, 1100000000),
                                   ("D/b", 0o755, 1000000000), ("D/b", 0o600, 1200000000)):
              info = tarfile.TarInfo(name)
              info.size, info.mode, info.mtime = 2, mode, time
              t.addfile(info, io.BytesIO(b"x\\n"))
      with zipfile.ZipFile("d.zip", "w") as z:
          for mode in (0o644, 0o600):
              info = zipfile.ZipInfo("Z/a", (2020, 1, 1, 0, 0, 0))
              info.external_attr = (0o100000 | mode) << 16
              info.create_system = 3
              z.writestr(info, b"x\\n")
      """
    try Shell.run("python3", ["-c", script], directory: temp.path)
    let tar = try Shell.docpkg(["unpack", temp.appending("d.tar"), "-o", temp.appending("t"), "--quiet"])
    #expect(tar.status == 0, "\(tar.standardError)")
    #expect(try modeAndTime("t/D/a", in: temp.path) == "755 1100000000\n")
    #expect(try modeAndTime("t/D/b", in: temp.path) == "600 1200000000\n")
    let zip = try Shell.docpkg(["unpack", temp.appending("d.zip"), "-o", temp.appending("z"), "--quiet"])
    #expect(zip.status == 0, "\(zip.standardError)")
    #expect(try Shell.run("stat", ["-c", "%a", "z/Z/a"], directory: temp.path).standardOutput == "600\n")
    // Reading in place gives the same modes.
    for (archive, expected) in [("d.tar", ["a": "0755", "b": "0600"]), ("d.zip", ["a": "0600"])] {
      let inspected = try Shell.docpkg(["inspect", "--json", temp.appending(archive)])
      #expect(inspected.status == 0, "\(inspected.standardError)")
      for (name, mode) in expected {
        let entry = "{\"kind\":\"file\",\"mode\":\"\(mode)\",\"path\":\"\(name)\""
        #expect(inspected.standardOutput.contains(entry), "\(archive): \(inspected.standardOutput)")
      }
    }
  }
}
