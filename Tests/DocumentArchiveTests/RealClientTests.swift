import Foundation
import TestSupport
import Testing

/// Issue 10: document packages that leave our world open in the programs people use. Real programs
/// from Debian's packages (Scripts/setup.sh installs them): LibreOffice, pdftotext, pandoc, epubcheck,
/// unzip, bsdtar, Python and the JDK's `jar`. Slow (LibreOffice, the JVM): run by `make interop`
/// (DOCPKG_INTEROP=1), not by `make test`.
@Suite("real clients", .enabled(if: ProcessInfo.processInfo.environment["DOCPKG_INTEROP"] == "1"))
struct RealClientTests {
  /// LibreOffice with a profile of its own in `temp` (never the user's).
  func soffice(_ arguments: [String], in temp: TemporaryDirectory) throws {
    let profile = "-env:UserInstallation=file://" + temp.appending("lo-profile")
    try Shell.run("soffice", [profile, "--headless"] + arguments, directory: temp.path)
  }

  @Test("an ODT made by LibreOffice, unpacked, edited with put, packed: LibreOffice's PDF shows the edit")
  func libreOfficeRoundTrip() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("letter.txt", "Dear reader, this is the original text.\n\nSecond paragraph.\n")
    try soffice(["--convert-to", "odt", "--outdir", temp.path, temp.appending("letter.txt")], in: temp)
    let out = try temp.makeDirectory("unpacked")
    try Shell.docpkgChecked(["unpack", temp.appending("letter.odt"), "-o", out, "--quiet"])
    let package = out + "/letter.odt"
    let content = try String(contentsOfFile: package + "/content.xml", encoding: .utf8)
    #expect(content.contains("original text"))
    let edited = try temp.write("content.xml", content.replacingOccurrences(of: "original text", with: "EDITED text"))
    try Shell.docpkgChecked(["put", package, "content.xml", edited])
    let packed = try temp.makeDirectory("packed")
    try Shell.docpkgChecked(["pack", package, "-o", packed + "/edited.odt", "--quiet"])
    try soffice(["--convert-to", "pdf", "--outdir", packed, packed + "/edited.odt"], in: temp)
    let text = try Shell.run("pdftotext", [packed + "/edited.pdf", "-"]).standardOutput
    #expect(text.contains("Dear reader, this is the EDITED text."), "\(text)")
  }

  /// epubcheck's counts of fatals, errors and warnings (the jar run by `java -jar`: binfmt may be absent).
  func epubcheck(_ path: String) throws -> String {
    let result = try Shell.run("java", ["-jar", "/usr/bin/epubcheck", path], check: false)
    let line = (result.standardOutput + result.standardError).split(separator: "\n").first { $0.hasPrefix("Messages:") }
    return String(line ?? "no summary: \(result.standardError)")
  }

  @Test("an EPUB made by pandoc, unpacked and packed back: epubcheck reports no more problems than for the original")
  func pandocEPUBRoundTrip() throws {
    let temp = try TemporaryDirectory()
    let source = try temp.write(
      "book.md", "---\ntitle: A Small Book\nlang: en\n---\n\n# One\n\nText.\n\n# Two\n\nMore.\n")
    try Shell.run("pandoc", [source, "-o", temp.appending("book.epub")])
    let out = try temp.makeDirectory("unpacked")
    try Shell.docpkgChecked(["unpack", temp.appending("book.epub"), "-o", out, "--quiet"])
    try Shell.docpkgChecked(["pack", out + "/book.epub", "-o", temp.appending("repacked.epub"), "--quiet"])
    let original = try epubcheck(temp.appending("book.epub"))
    let repacked = try epubcheck(temp.appending("repacked.epub"))
    #expect(original.hasPrefix("Messages:"), "\(original)")
    #expect(repacked == original, "original: \(original); repacked: \(repacked)")
  }

  /// The sorted entry names a client lists, directories with a trailing `/`.
  func names(listedBy client: String, _ archive: String) throws -> [String] {
    let output: String
    switch client {
    case "unzip": output = try Shell.run("unzip", ["-Z1", archive]).standardOutput
    case "bsdtar": output = try Shell.run("bsdtar", ["-tf", archive]).standardOutput
    case "python":
      output = try Shell.run(
        "python3", ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", archive]
      ).standardOutput
    default: output = try Shell.run("jar", ["tf", archive]).standardOutput
    }
    return output.split(separator: "\n").map(String.init).sorted()
  }

  @Test(
    "a zip made by docpkg pack is listed identically by unzip, bsdtar, Python's zipfile and jar tf, and extracts to the package"
  )
  func ourZipListedIdentically() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("notes.zip")
    try Shell.docpkgChecked(["pack", package, "-o", archive, "--quiet"])
    let reference = try names(listedBy: "unzip", archive)
    #expect(reference.contains("Notes.mydoc/Images/tram.png"))
    for client in ["bsdtar", "python", "jar"] {
      #expect(try names(listedBy: client, archive) == reference, "\(client)")
    }
    let jarOut = try temp.makeDirectory("jar")
    try Shell.run("jar", ["xf", archive], directory: jarOut)
    #expect(try Listing.of(jarOut + "/Notes.mydoc", mtimes: false) == Listing.of(package, mtimes: false))
  }

  @Test("docpkg reads what jar writes, as it reads zip's, bsdtar's and Python's (InteropTests)")
  func jarZipReadByUs() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("theirs.zip")
    // M: no manifest, so the archive holds exactly the package.
    try Shell.run("jar", ["cfM", archive, "Notes.mydoc"], directory: temp.path)
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    // jar records no Unix modes (its entries are "made by" FAT): libarchive gives them 0664/0775, so
    // compare names, kinds and bytes.
    func withoutModes(_ listing: String) throws -> [String: [String: String]] {
      let parsed = try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: [String: String]] ?? [:]
      return parsed.mapValues { $0.filter { $0.key != "mode" } }
    }
    #expect(
      try withoutModes(Listing.of(out + "/Notes.mydoc", mtimes: false))
        == withoutModes(Listing.of(package, mtimes: false)))
    let inspected = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(inspected.contains("tram.png"))
  }
}
