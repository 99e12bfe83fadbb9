import DocumentPackage
import Foundation
import TestSupport
import Testing

/// Times before 1970 with a fraction of a second (issue 37): a pax `mtime` is a decimal, `-1234567.5`, which is
/// whole seconds -1234568 and 0.5 s after them on the file system. Packing wrote it a second early, unpacking set it
/// a second late, and `diff` printed a folder's time a second early.
@Suite("Times before 1970 with a fraction", .enabled(if: Shell.has("python3") && Shell.has("tar")))
struct NegativeTimeTests {
  static let time = "-1234567.5"

  @Test func aTimeIsPrintedAsStatPrintsIt() {
    let time = FileTime(seconds: -1_234_568, nanoseconds: 500_000_000)
    #expect(time.description == "-1234567.500000000")
    #expect(FileTime(seconds: -1, nanoseconds: 250_000_000).description == "-0.750000000")
    #expect(FileTime(decimal: "-1234567.500000000") == time)
    #expect(FileTime(decimal: "-0.750000000") == FileTime(seconds: -1, nanoseconds: 250_000_000))
    #expect(FileTime(decimal: "-2.000000000") == FileTime(seconds: -2))
    #expect(FileTime(decimal: "+2.000000000") == nil)
  }

  @Test func packWritesThePaxTimeTarAndPythonRead() throws {
    let temp = try TemporaryDirectory()
    try Shell.run("mkdir", ["-p", "T.pkg"], directory: temp.path)
    try Data("x\n".utf8).write(to: URL(fileURLWithPath: temp.appending("T.pkg/f")))
    try Shell.run("touch", ["-d", "@\(Self.time)", "T.pkg/f"], directory: temp.path)
    let packed = try Shell.docpkg(["pack", temp.appending("T.pkg"), "-o", temp.appending("T.tar")])
    #expect(packed.status == 0, "\(packed.standardError)")
    let script = "import sys, tarfile; print(tarfile.open(sys.argv[1]).getmember('T.pkg/f').mtime)"
    let python = try Shell.run("python3", ["-c", script, temp.appending("T.tar")]).standardOutput
    #expect(python == "\(Self.time)\n")
  }

  @Test func unpackSetsThePaxTimeAndDiffAgreesWithGNUTar() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("times.tar")
    let script = """
      import io, sys, tarfile
      with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
          info = tarfile.TarInfo("T/neg")
          info.size, info.mtime = 2, \(Self.time)
          t.addfile(info, io.BytesIO(b"x\\n"))
      """
    try Shell.run("python3", ["-c", script, archive])
    let unpacked = try Shell.docpkg(["unpack", archive, "-o", temp.appending("u"), "--quiet"])
    #expect(unpacked.status == 0, "\(unpacked.standardError)")
    let stat = "import os, sys; print(os.stat(sys.argv[1]).st_mtime_ns)"
    let nanoseconds = try Shell.run("python3", ["-c", stat, temp.appending("u/T/neg")]).standardOutput
    #expect(nanoseconds == "-1234567500000000\n")

    try Shell.run("mkdir", ["g"], directory: temp.path)
    try Shell.run("tar", ["-C", "g", "-xf", archive], directory: temp.path)
    let diff = try Shell.docpkg(["diff", archive, temp.appending("g/T"), "--times"])
    #expect(diff.status == 0, "\(diff.standardOutput)\(diff.standardError)")
    let listed = try Shell.docpkg(["diff", archive, temp.appending("u/T"), "--times", "--json"])
    #expect(listed.status == 0, "\(listed.standardOutput)\(listed.standardError)")
  }
}
