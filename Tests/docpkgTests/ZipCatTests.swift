import Foundation
import TestSupport
import Testing

/// `docpkg cat ARCHIVE.zip ENTRY` through the zip's central directory, against `unzip -p` and the files zipped.
@Suite("docpkg cat of a zip", .enabled(if: Shell.has("zip") && Shell.has("unzip") && Shell.has("python3")))
struct ZipCatTests {
  /// A package `Pkg` with a small text file, a compressible 3 MB file, an empty file and a subdirectory.
  private func makePackage(in temp: TemporaryDirectory) throws -> [String: Data] {
    var big = Data()
    var random = SplitMix64(seed: 14)
    for line in 0..<60_000 { big.append(Data("line \(line) \(random.next() % 1000)\n".utf8)) }
    let files: [String: Data] = [
      "a.txt": Data("hello\n".utf8), "Data/big.txt": big, "Data/empty.txt": Data(), "Data/Deep/c.txt": Data("c".utf8),
    ]
    for (path, contents) in files { try temp.write("Pkg/" + path, contents) }
    return files
  }

  @Test(arguments: [["-q", "-r"], ["-q", "-r", "-0"], ["-q", "-r", "-fz"]])
  func catOfAnInfoZipArchiveMatchesUnzip(options: [String]) throws {
    let temp = try TemporaryDirectory()
    let files = try makePackage(in: temp)
    let archive = temp.appending("Pkg.zip")
    try Shell.run("zip", options + [archive, "Pkg"], directory: temp.path)
    for (path, contents) in files {
      let result = try Shell.docpkg(["cat", archive, path])
      #expect(result.status == 0, "\(path): \(result.standardError)")
      #expect(result.stdout == contents, "\(path)")
      #expect(result.stdout == (try Shell.run("unzip", ["-p", archive, "Pkg/" + path]).stdout), "\(path)")
    }
  }

  @Test func catOfAnArchiveWePackedMatchesTheFiles() throws {
    let temp = try TemporaryDirectory()
    let files = try makePackage(in: temp)
    let archive = temp.appending("Packed.zip")
    #expect(try Shell.docpkg(["pack", temp.appending("Pkg"), "-o", archive, "--format", "zip"]).status == 0)
    for (path, contents) in files {
      let result = try Shell.docpkg(["cat", archive, path])
      #expect(result.status == 0, "\(path): \(result.standardError)")
      #expect(result.stdout == contents, "\(path)")
    }
  }

  @Test(arguments: [
    ("Nope/x.txt", "docpkg: error: no such entry 'Nope' in 'ARCHIVE'\n"),
    ("Data", "docpkg: error: not a regular file: 'Data' (it is a directory) in 'ARCHIVE'\n"),
    ("a.txt/x", "docpkg: error: not a directory: 'a.txt' (on the way to 'a.txt/x') in 'ARCHIVE'\n"),
  ])
  func badEntriesGiveTheSameOneLineErrorAsBefore(entry: String, message: String) throws {
    let temp = try TemporaryDirectory()
    _ = try makePackage(in: temp)
    let archive = temp.appending("Pkg.zip")
    try Shell.run("zip", ["-q", "-r", archive, "Pkg"], directory: temp.path)
    let result = try Shell.docpkg(["cat", archive, entry])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    // One line naming the entry and the archive, as for a package on disk.
    #expect(result.standardError == message.replacingOccurrences(of: "ARCHIVE", with: archive))
  }

  /// Writes a zip with Python's `zipfile`: `entries` are (name, contents) pairs, stored.
  private func pythonZip(_ archive: String, _ entries: [(String, String)]) throws {
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], 'w') as z:
          for i in range(2, len(sys.argv), 2): z.writestr(sys.argv[i], sys.argv[i + 1])
      """
    try Shell.run("python3", ["-c", script, archive] + entries.flatMap { [$0.0, $0.1] })
  }

  @Test func anEntryThePolicyRefusesFailsTheLookupAsTheWalkDoes() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Evil.zip")
    try pythonZip(archive, [("a.txt", "fine"), ("../evil.txt", "escape")])
    for entry in ["a.txt", "../evil.txt", "evil.txt"] {
      let result = try Shell.docpkg(["cat", archive, entry])
      #expect(result.status == 1, "\(entry)")
      #expect(result.stdout.isEmpty, "\(entry)")
      #expect(result.standardError.contains("refusing unsafe entry"), "\(entry): \(result.standardError)")
      #expect(result.standardError.split(separator: "\n").count == 1)
    }
  }

  @Test func aDuplicateEntryIsJudgedAsTheWalkJudgesIt() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Twice.zip")
    try pythonZip(archive, [("a.txt", "first"), ("b.txt", "b"), ("a.txt", "other")])
    let result = try Shell.docpkg(["cat", archive, "b.txt"])
    #expect(result.status == 1)
    #expect(result.standardError.contains("a second entry has the same path"), "\(result.standardError)")
  }

  @Test func aDamagedEntryFailsItsCRCCheckNamingIt() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Damaged.zip")
    try pythonZip(archive, [("Pkg/a.txt", "intact contents"), ("Pkg/b.txt", "b")])
    var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
    let at = bytes.range(of: Data("intact".utf8))!.lowerBound
    bytes[at] = UInt8(ascii: "I")
    try bytes.write(to: URL(fileURLWithPath: archive))
    let result = try Shell.docpkg(["cat", archive, "a.txt"])
    #expect(result.status == 1)
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(result.standardError.contains("'Pkg/a.txt' in '\(archive)'"), "\(result.standardError)")
    #expect(result.standardError.contains("its CRC-32 does not match"), "\(result.standardError)")
    #expect(try Shell.docpkg(["cat", archive, "b.txt"]).stdout == Data("b".utf8))
  }

  /// Outsider attack on issue 37 (F12): `cat S.zip S.pkg/a.txt`, where `S.pkg` is the archive's top folder, said only
  /// "no such entry 'S.pkg'". It says which command names the file.
  @Test(arguments: ["S.zip", "S.tar", "S.pkg"])
  func anEntryGivenWithThePackagesNameSaysWhichNameToUse(package: String) throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("S.pkg/a.txt", "a\n")
    try Shell.run("zip", ["-q", "-r", "S.zip", "S.pkg"], directory: temp.path)
    try Shell.run("tar", ["-cf", "S.tar", "S.pkg"], directory: temp.path)
    let path = temp.appending(package)
    let result = try Shell.docpkg(["cat", path, "S.pkg/a.txt"])
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "docpkg: error: no such entry 'S.pkg' in '\(path)' (ENTRY is a path inside the package, without its name: "
        + "docpkg cat '\(path)' 'a.txt')\n")
    #expect(try Shell.docpkg(["cat", path, "a.txt"]).standardOutput == "a\n")
  }
}
