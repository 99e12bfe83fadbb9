import Foundation
import TestSupport
import Testing

/// `docpkg bookmark` and `docpkg resolve` through the real binary, with real `mv`, `cp` and `docpkg put`.
@Suite("docpkg bookmark and resolve")
struct ReferenceCommandTests {
  @Test func bookmarkPrintsOneLineThatResolveTurnsBackIntoThePath() throws {
    let temp = try TemporaryDirectory("reference-cli")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let bookmark = try Shell.docpkg(["bookmark", package])
    #expect(bookmark.status == 0, "\(bookmark.standardError)")
    #expect(bookmark.standardError.isEmpty)
    let lines = bookmark.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty)  // one line
    let reference = String(lines[0])
    #expect(reference.hasPrefix("docpkg-ref1:"))
    #expect(!reference.contains { $0.isWhitespace })
    let resolved = try Shell.docpkg(["resolve", reference])
    #expect(resolved.status == 0, "\(resolved.standardError)")
    #expect(resolved.standardOutput == package + "\n")
    #expect(resolved.standardError.isEmpty)
    // The same reference again: the identity is the package's, not made anew each time.
    #expect(try Shell.docpkg(["bookmark", package]).standardOutput == bookmark.standardOutput)
  }

  @Test func resolveFollowsMovesAndSavesAndSaysWhenTheReferenceIsStale() throws {
    let temp = try TemporaryDirectory("reference-cli")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try bookmark(package)
    for round in 0..<10 {  // `put` twice per round: two top-level changes across saves, some replacing the root
      #expect(try Shell.docpkg(["put", package, "Text.txt"], input: Data("\(round)\n".utf8)).status == 0)
      #expect(try Shell.docpkg(["put", package, "R\(round).txt"], input: Data("r".utf8)).status == 0)
    }
    var resolved = try Shell.docpkg(["resolve", reference])
    #expect(resolved.standardOutput == package + "\n")
    #expect(resolved.standardError.isEmpty)

    try FileManager.default.createDirectory(atPath: temp.appending("Moved"), withIntermediateDirectories: true)
    let moved = temp.appending("Moved/Renamed.mydoc")
    try Shell.run("/bin/mv", [package, moved])
    #expect(try Shell.docpkg(["put", moved, "After.txt"], input: Data("after move".utf8)).status == 0)
    resolved = try Shell.docpkg(["resolve", reference])
    #expect(resolved.status == 0, "\(resolved.standardError)")
    #expect(resolved.standardOutput == moved + "\n")
    let prefix = "docpkg: stale reference (the package is not where it said); store this one instead: "
    #expect(resolved.standardError.hasPrefix(prefix))
    let fresh = String(resolved.standardError.dropFirst(prefix.count).dropLast())
    resolved = try Shell.docpkg(["resolve", fresh])
    #expect(resolved.standardOutput == moved + "\n")
    #expect(resolved.standardError.isEmpty)
  }

  @Test func resolveFailsWithOneLineWhenThePackageIsGoneAndNeverTakesACopy() throws {
    let temp = try TemporaryDirectory("reference-cli")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try bookmark(package)
    try Shell.run("/bin/cp", ["-a", package, temp.appending("Copy A.mydoc")])
    try Shell.run("/bin/cp", ["-r", package, temp.appending("Copy R.mydoc")])
    try FileManager.default.removeItem(atPath: package)
    let resolved = try Shell.docpkg(["resolve", reference, "--search-limit", "20"])
    #expect(resolved.status == 1)
    #expect(resolved.standardOutput.isEmpty)
    #expect(resolved.standardError.hasPrefix("docpkg: error: package not found: '\(package)' (nothing is there"))
    #expect(resolved.standardError.filter { $0 == "\n" }.count == 1)

    // --adopt: the cp -a copy is now the document.
    #expect(try Shell.docpkg(["bookmark", "--adopt", temp.appending("Copy A.mydoc")]).status == 0)
    let adopted = try Shell.docpkg(["resolve", reference, "--search-limit", "20"])
    #expect(adopted.standardOutput == temp.appending("Copy A.mydoc") + "\n")
  }

  @Test func badArgumentsAreUsageErrorsAndAMissingPackageAFailure() throws {
    let temp = try TemporaryDirectory("reference-cli")
    var result = try Shell.docpkg(["resolve", "not-a-reference"])
    #expect(result.status == 64)
    #expect(result.standardError.hasPrefix("docpkg: error: not a package reference: 'not-a-reference'"))
    #expect(result.standardError.hasSuffix("(see 'docpkg resolve --help')\n"))
    result = try Shell.docpkg(["bookmark", temp.appending("Missing.mydoc")])
    #expect(result.status == 1)
    #expect(result.standardError == "docpkg: error: no such package '\(temp.appending("Missing.mydoc"))'\n")
    let file = try temp.write("file.txt", "x")
    result = try Shell.docpkg(["bookmark", file])
    #expect(result.status == 1)
    #expect(result.standardError == "docpkg: error: not a package (a package is a directory): '\(file)'\n")
  }

  private func bookmark(_ package: String) throws -> String {
    let result = try Shell.docpkg(["bookmark", package])
    #expect(result.status == 0, "\(result.standardError)")
    return result.standardOutput.trimmingCharacters(in: .newlines)
  }
}
