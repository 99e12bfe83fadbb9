import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37 (F6): a package holding `mimetype` is packed as an ODF/EPUB zip, its entries at the
/// archive's root; a link `sub/link -> ../a.txt` (to `a.txt` at the package's top) was then called "outside the
/// package": `pack` left it out, and `inspect` marked the same link refused in a zip made by Info-ZIP's `zip`.
@Suite("Links in a document zip (mimetype first)", .enabled(if: Shell.has("zip")))
struct DocumentZipLinkTests {
  /// `P.odt` with `mimetype`, `a.txt` and `sub/link -> ../a.txt`.
  private func makePackage() throws -> TemporaryDirectory {
    let temp = try TemporaryDirectory()
    _ = try temp.write("P.odt/mimetype", "application/vnd.oasis.opendocument.text")
    _ = try temp.write("P.odt/a.txt", "a\n")
    _ = try temp.makeDirectory("P.odt/sub")
    _ = try temp.symlink("P.odt/sub/link", to: "../a.txt")
    return temp
  }

  /// The zip as `pack` writes it, and as `zip -y` writes the package's entries at its root.
  @Test(arguments: ["pack", "zip"])
  func aLinkToTheTopOfTheDocumentIsKeptListedAndUnpacked(writer: String) throws {
    let temp = try makePackage()
    let archive = temp.appending("P.zip")
    if writer == "pack" {
      let packed = try Shell.docpkg(["pack", temp.appending("P.odt"), "-o", archive, "--format", "zip", "--quiet"])
      #expect(packed.status == 0, "\(packed.standardError)")
      #expect(packed.standardError.isEmpty, "\(packed.standardError)")
    } else {
      try Shell.run("zip", ["-q", "-y", "-r", archive, "mimetype", "a.txt", "sub"], directory: temp.appending("P.odt"))
    }
    let listing = try Shell.docpkg(["inspect", archive])
    #expect(listing.status == 0, "\(listing.standardError)")
    #expect(listing.standardOutput.contains("link -> ../a.txt\n"), "\(listing.standardOutput)")
    #expect(!listing.standardOutput.contains("refused"), "\(listing.standardOutput)")
    let unpacked = try Shell.docpkg(["unpack", archive, "-o", temp.appending("out"), "--quiet"])
    #expect(unpacked.status == 0, "\(unpacked.standardError)")
    #expect(try String(contentsOfFile: temp.appending("out/P/sub/link"), encoding: .utf8) == "a\n")
  }

  /// A link that leaves the document is still refused, in every reader, and left out by `pack`.
  @Test func aLinkAboveTheDocumentIsStillOutside() throws {
    let temp = try makePackage()
    _ = try temp.symlink("P.odt/sub/up", to: "../../a.txt")
    let archive = temp.appending("P.zip")
    let packed = try Shell.docpkg(["pack", temp.appending("P.odt"), "-o", archive, "--format", "zip", "--quiet"])
    #expect(packed.status == 0, "\(packed.standardError)")
    #expect(
      packed.standardError
        == "docpkg: skipped 'sub/up': it links to '../../a.txt': it points outside the package (not packed: unpack would refuse it)\n"
    )
    try Shell.run(
      "zip", ["-q", "-y", "-r", "../Z.zip", "mimetype", "a.txt", "sub"], directory: temp.appending("P.odt"))
    let listing = try Shell.docpkg(["inspect", temp.appending("Z.zip")])
    #expect(
      listing.standardOutput.contains("up -> ../../a.txt  [refused: it points outside the package]"),
      "\(listing.standardOutput)")
  }
}
