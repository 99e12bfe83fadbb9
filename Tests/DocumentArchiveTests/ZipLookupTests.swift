import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

/// `ArchivePackage.zipFileContents(at:in:)`: a lookup through the central directory answers as the
/// archive's tree does — the same bytes, the same error for a path that is not a file there, and the
/// tree's own notion of equal names (canonical equivalence), so that no verdict changes.
@Suite("zip lookup through the central directory", .enabled(if: Shell.has("python3")))
struct ZipLookupTests {
  /// Writes a zip with Python's `zipfile`: `entries` are (name, contents) pairs, stored, with names as
  /// given (UTF-8) and the Unix mode `-rw-r--r--`.
  private func pythonZip(_ archive: String, _ entries: [(String, String)]) throws {
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], 'w') as z:
          for i in range(2, len(sys.argv), 2):
              info = zipfile.ZipInfo(sys.argv[i], (2024, 1, 1, 0, 0, 0))
              info.create_system = 3
              info.external_attr = 0o100644 << 16
              z.writestr(info, sys.argv[i + 1])
      """
    try Shell.run("python3", ["-c", script, archive] + entries.flatMap { [$0.0, $0.1] })
  }

  /// The error the tree gives for `entry`: open the archive, look the path up, read it.
  private func treeError(_ archive: String, _ entry: String) -> String? {
    do {
      _ = try ArchivePackage.open(FilePath(archive)).node(at: entry).contents()
      return nil
    } catch { return String(describing: error) }
  }

  @Test(
    "a path that is not a file is answered from the central directory, with the tree's error",
    arguments: ["Nope", "Nope/x.txt", "Data", "Data/Deep/none", "a.txt/x", "Data/b.txt/y/z"])
  func notAFileThrowsTheTreesError(entry: String) throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Pkg.zip")
    try pythonZip(archive, [("Pkg/a.txt", "a"), ("Pkg/Data/b.txt", "b"), ("Pkg/Data/Deep/c.txt", "c")])
    let expected = try #require(treeError(archive, entry))
    do {
      let source = try ArchivePackage.zipFileContents(at: entry, in: FilePath(archive))
      Issue.record("no error for \(entry): \(String(describing: source))")
    } catch {
      #expect(String(describing: error) == expected)
    }
  }

  @Test("a name given in another Unicode normalization finds the entry, as in the tree")
  func canonicallyEquivalentNameFindsTheEntry() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Accents.zip")
    try pythonZip(archive, [("Pkg/caf\u{E9}.txt", "nfc"), ("Pkg/Data/x.txt", "x")])
    let source = try #require(try ArchivePackage.zipFileContents(at: "cafe\u{301}.txt", in: FilePath(archive)))
    #expect(try source.readAll() == Data("nfc".utf8))
    #expect(try ArchivePackage.open(FilePath(archive)).node(at: "cafe\u{301}.txt").contents() == Data("nfc".utf8))
  }

  @Test(
    "names equal as strings but not as bytes are a duplicate, as the walk judges them",
    arguments: [("caf\u{E9}.txt", "cafe\u{301}.txt"), ("K.txt", "\u{212A}.txt")])
  func canonicallyEquivalentNamesAreDuplicates(first: String, second: String) throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Twice.zip")
    try pythonZip(archive, [(first, "one"), ("b.txt", "b"), (second, "two")])
    // The walk refuses the archive; the lookup leaves it to the walk rather than answer differently.
    #expect(treeError(archive, "b.txt")?.contains("a second entry has the same path") == true)
    #expect(try ArchivePackage.zipFileContents(at: "b.txt", in: FilePath(archive)) == nil)
  }

  @Test("a lookup in a zip of many entries finds one at the root and one below the top directory")
  func manyEntries() throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Many.zip")
    var entries: [(String, String)] = []
    for index in 0..<300 { entries.append(("Top/D\(index % 7)/f\(index).txt", "\(index)")) }
    try pythonZip(archive, entries)
    let source = try #require(try ArchivePackage.zipFileContents(at: "D3/f157.txt", in: FilePath(archive)))
    #expect(try source.readAll() == Data("157".utf8))
    let top = try #require(ArchivePackage.zipTopLevel(of: FilePath(archive)))
    #expect(top.files == 300 && top.directories == 7)
    #expect(try top.root.sortedChildren().map(\.name) == (0..<7).map { "D\($0)" })
  }
}
