import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive

/// Issue 37: the flat listing of an archive (`inspect` of one with a refused entry, `--json` too) gave a symbolic
/// link the size its tar header declares, 0, where `ls -l` and `find -ls` give the destination's length.
@Suite("a symbolic link is listed with its destination's length")
struct SymlinkListingSizeTests {
  @Test func aLinksSizeIsItsDestinationsLengthInBytes() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("links.tar")
    let script = """
      import io, sys, tarfile
      with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
          info = tarfile.TarInfo("P/caf\\u00e9.txt")
          info.size = 2
          t.addfile(info, io.BytesIO(b"a\\n"))
          for name, target in [("P/l", "caf\\u00e9.txt"), ("P/out", "../../etc/passwd")]:
              link = tarfile.TarInfo(name)
              link.type = tarfile.SYMTYPE
              link.linkname = target
              t.addfile(link)
      """
    try Shell.run("python3", ["-c", script, archive])
    let listed = try ArchiveListing.entries(of: FilePath(archive))
    #expect(listed.map(\.path) == ["P/caf\u{e9}.txt", "P/l", "P/out"])
    #expect(listed.map(\.size) == [2, 9, 16], "é is two bytes in UTF-8")
    #expect(listed.last?.refused != nil, "the link out of the package is what makes inspect list flat")
  }
}
