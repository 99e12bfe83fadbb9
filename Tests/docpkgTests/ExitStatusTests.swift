import Foundation
import TestSupport
import Testing

/// One exit-status rule: 64 for usage errors (pointing to the command's help), 1 for failures, 2 for `diff`'s.
@Suite("docpkg exit status")
struct ExitStatusTests {
  @Test(arguments: [
    (["pack", "PKG", "-o", "OUT/a.zip", "--level", "12"], "'docpkg pack --help'"),
    (["pack", "PKG", "-o", "OUT/a.zip", "--format", "rar"], "'docpkg pack --help'"),
    (["pack", "PKG", "-o", "OUT/a.rar"], "'docpkg pack --help'"),
    (["inspect", "--depth", "many", "PKG"], "'docpkg inspect --help'"),
    (["put", "PKG", "Text.txt", "--versions", "some"], "'docpkg put --help'"),
    (["versions", "list", "PKG", "--bogus"], "'docpkg versions list --help'"),
    (["diff", "--stat", "--json", "PKG", "PKG"], "'docpkg diff --help'"),
  ])
  func usageErrorsExit64AndPointToTheCommandsHelp(arguments: [String], hint: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let arguments = arguments.map {
      $0.replacingOccurrences(of: "PKG", with: package).replacingOccurrences(of: "OUT", with: temp.path)
    }
    let result = try Shell.docpkg(arguments, input: Data("x".utf8))
    #expect(result.status == 64, "\(arguments): \(result.standardError)")
    #expect(result.standardError.hasPrefix("docpkg: error: "))
    #expect(result.standardError.hasSuffix("(see \(hint))\n"), "\(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: temp.appending("a.zip")))
  }

  @Test func anUnknownCommandIsNamedAsOne() throws {
    let result = try Shell.docpkg(["bogus", "x"])
    #expect(result.status == 64)
    #expect(result.standardError == "docpkg: error: unknown command 'bogus' for 'docpkg' (see 'docpkg --help')\n")
    let nested = try Shell.docpkg(["versions", "lst", "x"])
    #expect(nested.status == 64)
    #expect(
      nested.standardError
        == "docpkg: error: unknown command 'lst' for 'docpkg versions' (see 'docpkg versions --help')\n")
  }

  @Test(
    "an unknown command is one with --help too, as git and swift say",
    arguments: [
      (["frobnicate", "--help"], "frobnicate", "docpkg"), (["frobnicate", "-h"], "frobnicate", "docpkg"),
      (["frobnicate"], "frobnicate", "docpkg"), (["versions", "lst", "--help"], "lst", "docpkg versions"),
      (["help", "frobnicate"], "frobnicate", "docpkg"), (["help", "versions", "lst"], "lst", "docpkg versions"),
    ])
  func anUnknownCommandWithHelpIsAnError(_ arguments: [String], unknown: String, parent: String) throws {
    let result = try Shell.docpkg(arguments)
    #expect(result.status == 64)
    #expect(result.standardError.hasPrefix("docpkg: error: unknown command '\(unknown)' for '\(parent)'"))
    #expect(result.standardOutput.isEmpty)
    // The parent's help is still help.
    let parentPath = parent.split(separator: " ").dropFirst().map(String.init)
    #expect(try Shell.docpkg(parentPath + ["--help"]).status == 0)
    #expect(try Shell.docpkg(["help"] + parentPath).status == 0)
  }

  @Test func failuresExit1AndDiffFailuresExit2() throws {
    let temp = try TemporaryDirectory()
    let missing = temp.appending("missing.mydoc")
    #expect(try Shell.docpkg(["inspect", missing]).status == 1)
    #expect(try Shell.docpkg(["pack", missing, "-o", temp.appending("a.zip")]).status == 1)
    #expect(try Shell.docpkg(["diff", missing, missing]).status == 2)
  }
}
