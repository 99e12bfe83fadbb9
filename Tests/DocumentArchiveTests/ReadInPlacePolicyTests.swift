import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Every reader of an archive (inspect, cat, diff, serve's `ArchivePackage.open`, unpack) follows one rule for what it
/// refuses: encrypted entries and unsafe symbolic links included.
@Suite("one policy for reading in place and unpacking")
struct ReadInPlacePolicyTests {
  /// An encrypted zip of `E/a.txt` and `E/b.txt` (7-Zip's AES-256, or ZipCrypto by Info-ZIP `zip -P`), in `temp`.
  static func encryptedZip(_ kind: String, in temp: TemporaryDirectory) throws -> String {
    try temp.write("src/E/a.txt", "secret\n")
    try temp.write("src/E/b.txt", "more\n")
    let zip = temp.appending("\(kind).zip")
    if kind == "aes" {
      try Shell.run("7z", ["a", "-psecret", "-mem=AES256", zip, "E"], directory: temp.appending("src"))
    } else {
      try Shell.run("zip", ["-q", "-r", "-P", "secret", zip, "E"], directory: temp.appending("src"))
    }
    return zip
  }

  @Test(
    "an encrypted zip is listed with each encrypted entry marked, and refused in one line naming the first",
    .enabled(if: Shell.has("7z") && Shell.has("zip")), arguments: ["aes", "zipcrypto"])
  func encryptedZip(_ kind: String) throws {
    let temp = try TemporaryDirectory()
    let zip = try Self.encryptedZip(kind, in: temp)
    let reason = "it is encrypted (docpkg does not decrypt: a passphrase would be required)"
    let listing = try Shell.docpkgChecked(["inspect", zip]).standardOutput
    for name in ["E/a.txt", "E/b.txt"] { #expect(listing.contains("\(name)  [refused: \(reason)]"), "\(listing)") }
    #expect(listing.contains("2 refused"))
    let json = try Shell.docpkgChecked(["inspect", zip, "--json"]).standardOutput
    #expect(json.contains("\"refused\":\"\(reason)\"") && json.contains("\"refused\":2}"))
    // The first encrypted entry in archive order, as the central directory lists it.
    let first = try Shell.run(
      "python3",
      [
        "-c",
        "import zipfile,sys; print([i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist() if i.flag_bits & 1][0])",
        zip,
      ]
    ).standardOutput.trimmingCharacters(in: .newlines)
    let line = "docpkg: error: cannot read entry '\(first)' in '\(zip)': \(reason)\n"
    let out = try temp.makeDirectory("out")
    for arguments in [["unpack", zip, "-o", out], ["cat", zip, "a.txt"], ["diff", zip, temp.appending("src/E")]] {
      let result = try Shell.docpkg(arguments)
      #expect(result.status == (arguments[0] == "diff" ? 2 : 1))
      #expect(result.standardError == line, "\(arguments)")
    }
    #expect(entries(below: out).isEmpty)
    // What serve opens an archive with.
    #expect(throws: PackageError.self) { try ArchivePackage.open(FilePath(zip), limits: UnpackLimits()) }
  }

  @Test(
    "an archive with a symbolic link unpack refuses is refused by cat, diff and reading in place with the same line",
    arguments: [
      ["symlink-absolute.tar", "x.txt", "'pkg/abs' -> '/etc/passwd'"],
      ["symlink-escape.zip", "x.txt", "'pkg/escape' -> '../../outside'"],
      ["toplevel-link-foreign.tar", "small.txt", "'link' -> 'not-in-archive.txt'"],
    ])
  func unsafeLinkRefusedEverywhere(_ test: [String]) throws {
    let (archiveName, entry, link) = (test[0], test[1], test[2])
    let temp = try TemporaryDirectory()
    let archive = try makeHostileArchives(String(archiveName.split(separator: ".")[0]), in: temp) + "/" + archiveName
    let out = try temp.makeDirectory("out")
    let unpacked = try Shell.docpkg(["unpack", archive, "-o", out])
    #expect(unpacked.status == 1)
    #expect(unpacked.standardError.hasPrefix("docpkg: error: refusing unsafe symbolic link \(link) in '\(archive)': "))
    for arguments in [["cat", archive, entry], ["diff", archive, out], ["diff", out, archive, "--name-status"]] {
      let result = try Shell.docpkg(arguments)
      #expect(result.status == (arguments[0] == "diff" ? 2 : 1), "\(arguments)")
      #expect(result.standardError == unpacked.standardError, "\(arguments)")
    }
    #expect(throws: PackageError.self) { try ArchivePackage.open(FilePath(archive), limits: UnpackLimits()) }
    // inspect still lists it, the link marked.
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("[refused: "))
  }
}
