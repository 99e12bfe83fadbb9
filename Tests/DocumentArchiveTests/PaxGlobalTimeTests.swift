import Foundation
import TestSupport
import Testing

/// A pax global header's `mtime` (issue 37): GNU tar and Python's tarfile give it to every later entry whose own pax
/// header gives no `mtime`; bsdtar ignores it. We follow the majority (a README table row says so).
@Suite("A pax global header's mtime", .enabled(if: Shell.has("python3")))
struct PaxGlobalTimeTests {
  @Test func theGlobalTimeIsEveryEntrysUnlessItsOwnHeaderGivesOne() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("g.tar")
    let script = """
      import io, sys, tarfile
      with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT, pax_headers={"mtime": "1000000000.5"}) as t:
          for name, own in (("P/a.txt", None), ("P/b.txt", "1600000000")):
              info = tarfile.TarInfo(name)
              info.size, info.mtime = 2, 1700000000
              if own: info.pax_headers = {"mtime": own}
              t.addfile(info, io.BytesIO(b"x\\n"))
      print(" ".join(str(m.mtime) for m in tarfile.open(sys.argv[1])))
      """
    let python = try Shell.run("python3", ["-c", script, archive]).standardOutput
    #expect(python == "1000000000.5 1600000000.0\n")
    let result = try Shell.docpkg(["unpack", archive, "-o", temp.appending("out"), "--quiet"])
    #expect(result.status == 0, "\(result.standardError)")
    let times = try Shell.run("stat", ["-c", "%.1Y", "out/P/a.txt", "out/P/b.txt"], directory: temp.path)
    #expect(times.standardOutput == "1000000000.5\n1600000000.0\n", "\(times.standardOutput)")
  }
}
