import Foundation
import TestSupport
import Testing

/// `pack` of a package that compresses past unpack's ratio rule (a large file of zeros) says so, with the
/// `--max-ratio` the archive needs, rather than leaving the refusal to a later `unpack`.
@Suite struct PackRatioNoteTests {
  @Test("pack of 20 MB of zeros names the --max-ratio its unpack needs, and that ratio unpacks it")
  func zerosPackWithANote() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("Z.pkg/zeros", Data(count: 20 << 20))
    let archive = temp.appending("z.zip")
    let pack = try Shell.docpkg(["pack", temp.appending("Z.pkg"), "-o", archive, "--quiet"])
    #expect(pack.status == 0)
    let note = pack.standardError
    #expect(note.hasPrefix("docpkg: note: '\(archive)' expands "), "\(note)")
    let ratio = note.split(separator: " ").last.map { String($0.dropLast()) }
    let refused = try Shell.docpkg(["unpack", archive, "-o", temp.appending("a"), "--quiet"])
    #expect(refused.status != 0)
    let unpacked = try Shell.docpkg([
      "unpack", archive, "-o", temp.appending("b"), "--quiet", "--max-ratio", ratio ?? "",
    ])
    #expect(unpacked.status == 0, "\(unpacked.standardError)")
  }

  @Test("pack of ordinary files says nothing")
  func ordinaryPackIsQuiet() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let pack = try Shell.docpkg(["pack", package, "-o", temp.appending("n.zip"), "--quiet"])
    #expect(pack.status == 0)
    #expect(pack.standardError.isEmpty, "\(pack.standardError)")
  }
}
