import Foundation
import TestSupport
import Testing

/// `docpkg inspect ARCHIVE.zip --depth 1` from the central directory: the same listing as the top level
/// of `--depth 2` (which reads the whole archive), with the same totals.
@Suite("docpkg inspect --depth 1 of a zip", .enabled(if: Shell.has("zip")))
struct ZipInspectTests {
  /// The lines of a text listing at most one level deep (level-2 lines have a prefix before their branch).
  private func topLevelLines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      .filter {
        !$0.contains("│   ├── ") && !$0.contains("│   └── ") && !$0.contains("    ├── ") && !$0.contains("    └── ")
      }
  }

  /// Entries and totals of a JSON listing, keeping entries at most `depth` deep.
  private func json(_ data: Data, depth: Int) throws -> NSDictionary {
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    var result = object
    let entries = try #require(object["entries"] as? [[String: Any]])
    result["entries"] = entries.filter { ($0["path"] as! String).split(separator: "/").count <= depth }
    return result as NSDictionary
  }

  private func expectSameAsFullListing(_ archive: String) throws {
    let fast = try Shell.docpkg(["inspect", archive, "--depth", "1"])
    let full = try Shell.docpkg(["inspect", archive, "--depth", "2"])
    #expect(fast.status == 0, "\(fast.standardError)")
    #expect(full.status == 0, "\(full.standardError)")
    #expect(fast.standardOutput.split(separator: "\n").count > 2)
    #expect(topLevelLines(fast.standardOutput) == topLevelLines(full.standardOutput))
    let fastJSON = try Shell.docpkg(["inspect", archive, "--depth", "1", "--json"])
    let fullJSON = try Shell.docpkg(["inspect", archive, "--depth", "2", "--json"])
    #expect(try json(fastJSON.stdout, depth: 1) == (try json(fullJSON.stdout, depth: 1)))
    let zero = try Shell.docpkg(["inspect", archive, "--depth", "0"])
    #expect(
      zero.standardOutput == topLevelLines(full.standardOutput).filter { !$0.contains("── ") }.joined(separator: "\n"))
  }

  /// A package with files and directories at two levels, some with unusual modes.
  private func makeTree(in temp: TemporaryDirectory, root: String) throws {
    try temp.write(root + "/top.txt", "top", mode: 0o600)
    try temp.write(root + "/Data/a.txt", "a")
    try temp.write(root + "/Data/Deep/b.txt", String(repeating: "b", count: 10_000))
    try temp.write(root + "/Run/tool.sh", "#!/bin/sh\n", mode: 0o755)
    try temp.write(root + "/Z.txt", "")
    _ = try temp.makeDirectory(root + "/Empty")
  }

  @Test(arguments: [["-q", "-r"], ["-q", "-r", "-D"], ["-q", "-r", "-0"]])
  func aPackageZippedByInfoZip(options: [String]) throws {
    let temp = try TemporaryDirectory()
    try makeTree(in: temp, root: "Pkg")
    let archive = temp.appending("Pkg.zip")
    try Shell.run("zip", options + [archive, "Pkg"], directory: temp.path)
    try expectSameAsFullListing(archive)
  }

  @Test func severalTopLevelEntriesAndADocumentZip() throws {
    let temp = try TemporaryDirectory()
    try makeTree(in: temp, root: "Loose")
    let loose = temp.appending("Loose.zip")
    try Shell.run("zip", ["-q", "-r", loose, "."], directory: temp.appending("Loose"))
    try expectSameAsFullListing(loose)
    try temp.write("Doc/mimetype", "application/vnd.oasis.opendocument.text")
    try makeTree(in: temp, root: "Doc/Content")
    let document = temp.appending("Doc.odt")
    try Shell.run("zip", ["-q", "-X", "-0", document, "mimetype"], directory: temp.appending("Doc"))
    try Shell.run("zip", ["-q", "-r", document, "Content"], directory: temp.appending("Doc"))
    try expectSameAsFullListing(document)
  }

  @Test func aPackageWePacked() throws {
    let temp = try TemporaryDirectory()
    try makeTree(in: temp, root: "Pkg")
    let archive = temp.appending("Packed.zip")
    #expect(try Shell.docpkg(["pack", temp.appending("Pkg"), "-o", archive, "--format", "zip"]).status == 0)
    try expectSameAsFullListing(archive)
  }
}
