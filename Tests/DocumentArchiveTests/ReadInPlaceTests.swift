@testable import DocumentArchive
@testable import DocumentPackage
import Foundation
import SystemPackage
import Testing
import TestSupport

@Suite("reading archives in place")
struct ReadInPlaceTests {
  @Test("inspect lists an archive exactly as it lists the package", arguments: ["zip", "tar.gz", "tar.zst"])
  func inspectMatchesPackage(format: String) throws {
    let temp = try TemporaryDirectory()
    for fixture in ["Attributes.pkg", "Notes.mydoc"] {
      let package = try Fixtures.copy(fixture, into: temp)
      let archive = temp.appending("\(fixture).\(format)")
      try Shell.docpkgChecked(["pack", package, "-o", archive])
      for flags in [["--json"], []] {
        let fromArchive = try Shell.docpkgChecked(["inspect", archive] + flags).standardOutput
        let fromPackage = try Shell.docpkgChecked(["inspect", package] + flags).standardOutput
        #expect(fromArchive == fromPackage)
      }
    }
  }

  @Test("cat streams a file out of an archive made by another tool")
  func catFromArchive() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("notes.zip")
    try Shell.run("zip", ["-qry", archive, "Notes.mydoc"], directory: temp.path)
    for entry in ["Images/tram.png", "Text.txt", "Index.json"] {
      let bytes = try Shell.docpkgChecked(["cat", archive, entry]).stdout
      #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: package + "/" + entry))))
    }
    let missing = try Shell.docpkg(["cat", archive, "Nope.txt"])
    #expect(missing.status == 1 && missing.standardError.contains("Nope.txt"))
  }

  @Test("reading every file in walk order is one pass over one open archive; other orders are still right")
  func onePass() throws {
    let temp = try TemporaryDirectory()
    for index in 0..<300 { try temp.write("Many.pkg/d\(index % 7)/f\(index).txt", "file \(index)\n" + String(repeating: "x", count: index * 50)) }
    let archive = FilePath(temp.appending("many.zip"))
    try ArchivePacker.pack(try PackageNode(contentsOf: FilePath(temp.appending("Many.pkg"))), to: archive, options: PackOptions(format: .zip))
    let root = try ArchivePackage.open(archive)
    var files: [(String, PackageNode)] = []
    try root.walk { node, path, _ in
      if node.kind == .file { files.append((path, node)) }
      return true
    }
    #expect(files.count == 300)
    for (path, node) in files {
      #expect(try node.contents() == Data(contentsOf: URL(fileURLWithPath: temp.appending("Many.pkg/" + path))))
    }
    guard case .source(let source) = files[0].1.fileBody, let entry = source as? ArchiveEntrySource else {
      Issue.record("not an archive-backed node")
      return
    }
    #expect(entry.cursor.opens == 1)
    // Backwards: correct, and small entries passed over are served from the cache.
    for (path, node) in files.reversed().prefix(20) {
      #expect(try node.contents() == Data(contentsOf: URL(fileURLWithPath: temp.appending("Many.pkg/" + path))))
    }
    #expect(entry.cursor.opens == 2)
  }

  @Test("a damaged archive read in place fails with an error naming the entry")
  func damagedEntry() throws {
    let temp = try TemporaryDirectory()
    let archives = try temp.makeDirectory("archives")
    try Shell.run("python3", [Fixtures.repositoryRoot.appendingPathComponent("Scripts/make-hostile-archives.py").path, archives, "bad-crc"])
    let result = try Shell.docpkg(["cat", archives + "/bad-crc.zip", "a.txt"])
    #expect(result.status == 1)
    #expect(result.standardError.contains("'pkg/a.txt'") && result.standardError.contains("CRC"), "\(result.standardError)")
  }
}
