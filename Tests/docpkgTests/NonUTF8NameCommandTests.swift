import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37 (F4): names that are not UTF-8, as GNU tar and Linux keep them, shown, compared and
/// named on the command line as their bytes: `\xNN` for a byte that is not UTF-8, `\\` for a backslash.
@Suite("docpkg inspect, diff and cat of names that are not UTF-8", .enabled(if: Shell.has("tar")))
struct NonUTF8NameCommandTests {
  /// `P.pkg` holding `a.txt` and `n<0xE9>.txt` (Latin-1 é), made by the shell; then `script` run in the folder.
  private func makePackage(_ script: String = "") throws -> TemporaryDirectory {
    let temp = try TemporaryDirectory()
    try Shell.run(
      "bash", ["-c", "mkdir P.pkg && echo a > P.pkg/a.txt && printf 'latin\\n' > P.pkg/$'n\\xe9.txt' && " + script],
      directory: temp.path)
    return temp
  }

  /// Every command taking an entry reads it one way (as `cat` does): the escaped form names the bytes.
  @Test func putAndRmTakeTheEscapedFormCatTakes() throws {
    let temp = try makePackage("true")
    let package = temp.appending("P.pkg")
    var result = try Shell.docpkg(["put", package, "n\\xE9.txt"], input: Data("replaced\n".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    result = try Shell.docpkg(["cat", package, "n\\xE9.txt"])
    #expect(result.standardOutput == "replaced\n", "\(result.standardError)")
    result = try Shell.docpkg(["rm", package, "n\\xE9.txt"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: package) == ["a.txt"])
    result = try Shell.docpkg(["rm", package, "n\\xE9.txt"])
    #expect(result.status == 1)
    #expect(result.standardError == "docpkg: error: no such entry 'n\\xE9.txt' in '\(package)'\n")
    result = try Shell.docpkg(["put", package, "sub/z\\xFF.txt"], input: Data("new\n".utf8))  // a new name: its bytes
    #expect(result.status == 0, "\(result.standardError)")
    let made = try Shell.run("bash", ["-c", "cat P.pkg/sub/$'z\\xff.txt'"], directory: temp.path)
    #expect(made.standardOutput == "new\n")
  }

  @Test func inspectOfAFolderShowsTheBytesAsTheArchiveListingDoes() throws {
    let temp = try makePackage("tar --format=gnu -cf P.tar P.pkg")
    let folder = try Shell.docpkg(["inspect", temp.appending("P.pkg")])
    #expect(folder.status == 0, "\(folder.standardError)")
    #expect(folder.standardOutput.contains("└── n\\xE9.txt\n"), "\(folder.standardOutput)")
    #expect(!folder.standardOutput.contains("\u{FFFD}"))
    let json = try Shell.docpkg(["inspect", "--json", temp.appending("P.pkg")])
    #expect(json.standardOutput.contains(#""path":"n\\xE9.txt","size":"#), "\(json.standardOutput)")
    let archive = try Shell.docpkg(["inspect", temp.appending("P.tar")])
    #expect(archive.standardOutput.contains("└── n\\xE9.txt\n"), "\(archive.standardOutput)")
  }

  /// A link whose destination is not UTF-8 shows its bytes as a name's are, never U+FFFD.
  @Test func aLinkWhoseDestinationIsNotUTF8IsShownWithItsBytes() throws {
    let temp = try makePackage("ln -s $'caf\\xe9' P.pkg/link && cp -a P.pkg Q.pkg && ln -sfn other Q.pkg/link")
    let inspect = try Shell.docpkg(["inspect", temp.appending("P.pkg")])
    #expect(inspect.status == 0, "\(inspect.standardError)")
    #expect(inspect.standardOutput.contains("link -> caf\\xE9\n"), "\(inspect.standardOutput)")
    #expect(!inspect.standardOutput.contains("\u{FFFD}"))
    let diff = try Shell.docpkg(["diff", temp.appending("P.pkg"), temp.appending("Q.pkg")])
    #expect(diff.status == 1, "\(diff.standardError)")
    #expect(diff.standardOutput.contains("caf\\xE9"), "\(diff.standardOutput)")
    #expect(!diff.standardOutput.contains("\u{FFFD}"))
    // Packed, the link keeps its bytes: the archive read in place is the folder.
    #expect(try Shell.docpkg(["pack", temp.appending("P.pkg"), "-o", temp.appending("P.tar")]).status == 0)
    let same = try Shell.docpkg(["diff", temp.appending("P.pkg"), temp.appending("P.tar")])
    #expect(same.status == 0 && same.standardOutput.isEmpty, "\(same.standardOutput)\(same.standardError)")
  }

  @Test func diffOfAFolderAndItsGNUTarFindsNoChange() throws {
    let temp = try makePackage("tar --format=gnu -cf P.tar P.pkg")
    let diff = try Shell.docpkg(["diff", temp.appending("P.pkg"), temp.appending("P.tar")])
    #expect(diff.status == 0, "\(diff.standardError)")
    #expect(diff.standardOutput.isEmpty, "\(diff.standardOutput)")
  }

  /// GNU tar's pax format writes such a name in a pax `path` record without `hdrcharset=BINARY`; Python writes it
  /// with it. bsdtar and Python's tarfile read both, keeping the bytes.
  @Test(arguments: [
    "tar --format=pax -cf P.tar P.pkg",
    "tar --format=ustar -cf P.tar P.pkg",
    """
    python3 -c 'import tarfile; t = tarfile.open("P.tar", "w", format=tarfile.PAX_FORMAT, encoding="latin-1"); \
    t.add("P.pkg"); t.close()'
    """,
  ])
  func aTarWhoseNamesAreLatin1IsReadWithItsBytes(script: String) throws {
    let temp = try makePackage(script)
    let archive = temp.appending("P.tar")
    let listing = try Shell.docpkg(["inspect", archive])
    #expect(listing.status == 0, "\(listing.standardError)")
    #expect(listing.standardOutput.contains("└── n\\xE9.txt\n"), "\(listing.standardOutput)")
    let unpacked = try Shell.docpkg(["unpack", archive, "-o", temp.appending("out")])
    #expect(unpacked.status == 0, "\(unpacked.standardError)")
    let names = try FileManager.default.contentsOfDirectory(atPath: temp.appending("out/P.pkg")).sorted()
    #expect(names.count == 2)
    #expect(
      try Shell.run("bash", ["-c", "cat out/P.pkg/$'n\\xe9.txt'"], directory: temp.path).standardOutput == "latin\n")
  }

  @Test func catNamesAnEntryAsInspectShowsIt() throws {
    let temp = try makePackage("tar --format=gnu -cf P.tar P.pkg")
    for package in ["P.tar", "P.pkg"] {
      let result = try Shell.docpkg(["cat", temp.appending(package), "n\\xE9.txt"])
      #expect(result.status == 0, "\(package): \(result.standardError)")
      #expect(result.standardOutput == "latin\n", "\(package)")
    }
    let missing = try Shell.docpkg(["cat", temp.appending("P.tar"), "n\\xE8.txt"])
    #expect(missing.status == 1)
    #expect(missing.standardError == "docpkg: error: no such entry 'n\\xE8.txt' in '\(temp.appending("P.tar"))'\n")
  }

  /// The name `a\xfe` (a backslash, then `xfe`) and the name `a` + byte 0xFE are shown, and named, apart.
  @Test func aBackslashInANameIsShownEscapedSoNoTwoNamesLookAlike() throws {
    let temp = try TemporaryDirectory()
    try Shell.run(
      "bash",
      [
        "-c",
        "mkdir P.pkg && echo literal > 'P.pkg/a\\xfe' && echo byte > P.pkg/$'a\\xfe' && tar --format=gnu -cf P.tar P.pkg",
      ],
      directory: temp.path)
    for package in ["P.tar", "P.pkg"] {
      let listing = try Shell.docpkg(["inspect", temp.appending(package)])
      #expect(listing.status == 0, "\(package): \(listing.standardError)")
      #expect(listing.standardOutput.contains("── a\\xFE\n"), "\(package): \(listing.standardOutput)")
      #expect(listing.standardOutput.contains("── a\\\\xfe\n"), "\(package): \(listing.standardOutput)")
      #expect(try Shell.docpkg(["cat", temp.appending(package), "a\\xFE"]).standardOutput == "byte\n", "\(package)")
      #expect(
        try Shell.docpkg(["cat", temp.appending(package), "a\\\\xfe"]).standardOutput == "literal\n", "\(package)")
    }
  }
}
