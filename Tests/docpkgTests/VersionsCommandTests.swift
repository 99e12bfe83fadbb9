import Foundation
import TestSupport
import Testing

@Suite("docpkg versions")
struct VersionsCommandTests {
  @Test func listShowRestoreResolvePruneAndPackageAtID() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("Doc.pkg")
    func put(_ entry: String, _ text: String, _ extra: [String] = []) throws {
      let result = try Shell.docpkg(["put", package, entry] + extra, input: Data(text.utf8))
      #expect(result.status == 0, "\(result.standardError)")
    }
    try put("a.txt", "one\n", ["--create"])
    try put("a.txt", "two\n")
    try put("b.txt", "bee\n")
    var result = try Shell.docpkg(["versions", "list", package])
    // 1: the empty package --create made, 2: a.txt "one", 3: a.txt "two".
    #expect(result.standardOutput.split(separator: "\n").map { $0.split(separator: " ")[0] } == ["1", "2", "3"])
    result = try Shell.docpkg(["versions", "list", package, "--json"])
    #expect(result.standardOutput.hasPrefix("[{\"id\":1,"))
    #expect(try Shell.docpkg(["versions", "show", package, "2", "a.txt"]).standardOutput == "one\n")
    #expect(try Shell.docpkg(["cat", package + "@2", "a.txt"]).standardOutput == "one\n")
    #expect(try Shell.docpkg(["versions", "show", package, "2"]).standardOutput.contains("a.txt"))
    result = try Shell.docpkg(["versions", "show", package, "9"])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("docpkg: error: no version 9 in"))

    #expect(try Shell.docpkg(["versions", "restore", package, "2"]).status == 0)
    #expect(try String(contentsOfFile: package + "/a.txt", encoding: .utf8) == "one\n")
    #expect(!FileManager.default.fileExists(atPath: package + "/b.txt"))
    #expect(try Shell.docpkg(["cat", package + "@4", "b.txt"]).standardOutput == "bee\n")  // kept by restore

    #expect(try Shell.docpkg(["versions", "prune", package, "--keep", "1"]).standardOutput == "removed 3 versions\n")
    #expect(try Shell.docpkg(["versions", "list", package]).standardOutput.hasPrefix("4 "))
    #expect(try Shell.docpkg(["versions", "resolve", package, "--keep", "4"]).status == 0)
    #expect(try String(contentsOfFile: package + "/b.txt", encoding: .utf8) == "bee\n")

    try put("c.txt", "sea\n", ["--versions", "none"])
    #expect(try Shell.docpkg(["versions", "list", package]).standardOutput.split(separator: "\n").count == 2)
  }

  @Test(.enabled(if: Shell.has("python3")))
  func twoWritersLoseNothing() throws {
    let script = Fixtures.script("two-writers.py")
    let result = try Shell.run("python3", [script, "--docpkg", Shell.docpkgPath, "--cycles", "8"], check: false)
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains(" 0 lost"))
  }

  /// The reduced restore crash test (see Tests/Scripts/crash-test.py --restore).
  @Test(.enabled(if: Shell.has("strace") && Shell.has("python3")))
  func killedAtEveryStepOfARestoreThePackageIsOldOrNew() throws {
    let script = Fixtures.script("crash-test.py")
    let result = try Shell.run(
      "python3", [script, "--docpkg", Shell.docpkgPath, "--restore", "--quick"], check: false)
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains(" 0 failures"))
  }
}
