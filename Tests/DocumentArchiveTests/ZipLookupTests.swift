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
  /// given (UTF-8) and the Unix mode `-rw-r--r--` (`drwxr-xr-x` for a name ending in `/`).
  private func pythonZip(_ archive: String, _ entries: [(String, String)]) throws {
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], 'w') as z:
          for i in range(2, len(sys.argv), 2):
              info = zipfile.ZipInfo(sys.argv[i], (2024, 1, 1, 0, 0, 0))
              info.create_system = 3
              info.external_attr = (0o40755 << 16) | 0x10 if sys.argv[i].endswith('/') else 0o100644 << 16
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

  /// The files and directories of the tree below `node`.
  private func counts(_ node: PackageNode) throws -> (files: Int, directories: Int) {
    var total = (files: 0, directories: 0)
    for child in try node.sortedChildren() {
      if child.kind == .directory {
        let below = try counts(child)
        total = (total.files + below.files, total.directories + below.directories + 1)
      } else {
        total.files += 1
      }
    }
    return total
  }

  /// Entries in path order (the scan's sorted case: no hashing) and out of it (the hash table), with
  /// explicit and implied directories at several depths and a `-` that sorts before `/` as a byte.
  static let layouts: [[String]] = [
    ["T/", "T/a/", "T/a/b/c.txt", "T/a/b-c.txt", "T/a/d.txt", "T/b/e.txt", "T/b/f/g/h.txt", "T/z.txt"],
    ["T/z.txt", "T/b/f/g/h.txt", "T/a/b/c.txt", "T/", "T/a/d.txt", "T/a/b-c.txt", "T/b/e.txt", "T/a/"],
    ["T/a/b/c.txt", "T/a/b/", "T/a/", "T/a/d.txt"],  // a directory described after entries below it
    ["a.txt", "b/c.txt", "b/d/", "b/d/e.txt", "c/", "c/f.txt"],  // several top-level names
    ["T/a", "T/ab.txt", "T/b/c", "T/b/cd/e.txt"],  // a file, then a name that begins with its name
  ]

  @Test("in path order or not, the lookup and the top level agree with the tree", arguments: layouts)
  func ordersAgreeWithTheTree(names: [String]) throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Order.zip")
    try pythonZip(archive, names.map { ($0, $0.hasSuffix("/") ? "" : "<\($0)>") })
    let tree = try ArchivePackage.open(FilePath(archive))
    let top = try #require(ArchivePackage.zipTopLevel(of: FilePath(archive)))
    let expected = try counts(tree)
    #expect(top.files == expected.files && top.directories == expected.directories)
    #expect(try top.root.sortedChildren().map(\.name) == tree.sortedChildren().map(\.name))
    for name in names where !name.hasSuffix("/") {
      let path = tree.name == "T" ? String(name.dropFirst(2)) : name
      let source = try #require(try ArchivePackage.zipFileContents(at: path, in: FilePath(archive)))
      #expect(try source.readAll() == Data("<\(name)>".utf8))
    }
    for missing in ["a/b", "a/none.txt", "b/f/g", "nothing", "a/b/c.txt/x"] {
      // As `docpkg cat` reads a node of the tree (its error names the whole path).
      var expectedError: String?
      do { try tree.node(at: missing).readContents(chunkSize: 1) { _ in } } catch {
        expectedError = String(describing: error)
      }
      do {
        let source = try ArchivePackage.zipFileContents(at: missing, in: FilePath(archive))
        #expect(expectedError == nil && source != nil, "\(missing): found in the zip, not in the tree")
      } catch {
        #expect(String(describing: error) == expectedError)
      }
    }
  }

  @Test(
    "an entry below a file, or a path met twice, is left to the walk, in path order or not",
    arguments: [
      ["a.txt", "a.txt/b.txt"], ["a.txt/b.txt", "a.txt"], ["a/b.txt", "a/b.txt"], ["a/", "a/b.txt", "a/b.txt"],
      ["a/b.txt", "c.txt", "a/b.txt"], ["d/", "d", "e.txt"],
    ])
  func conflictsAreLeftToTheWalk(names: [String]) throws {
    let temp = try TemporaryDirectory()
    let archive = temp.appending("Conflict.zip")
    try pythonZip(archive, names.map { ($0, "x") })
    #expect(treeError(archive, "e.txt") != nil)
    #expect(try ArchivePackage.zipFileContents(at: "e.txt", in: FilePath(archive)) == nil)
    #expect(ArchivePackage.zipTopLevel(of: FilePath(archive)) == nil)
  }
}
