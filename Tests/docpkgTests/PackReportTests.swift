import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37 (F13): what `pack` does that a user would not guess is said on standard error, and an
/// archive that cannot be made is refused with one line before anything is written.
@Suite("docpkg pack's report")
struct PackReportTests {
  /// A hard link was stored as a second copy of the file without a word: an unpack makes two files of one.
  @Test(arguments: ["P.zip", "P.tar"])
  func aHardLinkStoredAsACopyIsSaid(output: String) throws {
    let temp = try TemporaryDirectory()
    let original = try temp.write("P.pkg/a.txt", "shared\n")
    _ = try temp.write("P.pkg/z.txt", "own\n")
    try FileManager.default.linkItem(atPath: original, toPath: temp.appending("P.pkg/b.txt"))
    let archive = temp.appending(output)
    let result = try Shell.docpkg(["pack", temp.appending("P.pkg"), "-o", archive, "--quiet"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardError
        == "docpkg: note: 'P.pkg/b.txt' is a hard link to 'P.pkg/a.txt': stored as a copy (an unpack makes two files)\n"
    )
    #expect(try Shell.docpkg(["cat", archive, "b.txt"]).standardOutput == "shared\n")
  }

  /// `pack P -o P/inside.zip` packed the archive being written into itself.
  @Test(arguments: ["P.pkg/inside.zip", "P.pkg/Sub/inside.tar"])
  func anArchiveInsideThePackageIsRefusedWithOneLine(output: String) throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("P.pkg/a.txt", "a\n")
    _ = try temp.makeDirectory("P.pkg/Sub")
    let result = try Shell.docpkg(["pack", temp.appending("P.pkg"), "-o", temp.appending(output), "--quiet"])
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "docpkg: error: cannot write the archive inside the package being packed: '\(temp.appending(output))' "
        + "(it is in '\(temp.appending("P.pkg"))': write it outside the package)\n")
    #expect(!FileManager.default.fileExists(atPath: temp.appending(output)))
  }
}
