import Foundation
import TestSupport
import Testing

/// `diff`'s colours under a pseudo-terminal: `--color auto|always|never`, `NO_COLOR`, `TERM=dumb`.
@Suite("docpkg color", .enabled(if: Shell.has("python3")))
struct ColorTests {
  /// Two packages that differ in one file.
  static func packages() throws -> (TemporaryDirectory, String, String) {
    let temp = try TemporaryDirectory()
    let old = try Fixtures.copy("Notes.mydoc", into: temp)
    let new = temp.appending("New.mydoc")
    try FileManager.default.copyItem(atPath: old, toPath: new)
    try Data("changed\n".utf8).write(to: URL(fileURLWithPath: new + "/Text.txt"))
    return (temp, old, new)
  }

  @Test(arguments: [
    ([], ["TERM": "xterm", "NO_COLOR": ""], true),
    ([], ["TERM": "xterm", "NO_COLOR": "1"], false),
    ([], ["TERM": "dumb", "NO_COLOR": ""], false),
    (["--color", "never"], ["TERM": "xterm", "NO_COLOR": ""], false),
    (["--color", "always"], ["TERM": "dumb", "NO_COLOR": "1"], true),
    (["--color", "auto"], ["TERM": "xterm", "NO_COLOR": ""], true),
  ])
  func aTerminalIsColoredUnlessTheEnvironmentOrTheOptionSaysNot(
    options: [String], environment: [String: String], colored: Bool
  ) throws {
    let (temp, old, new) = try Self.packages()
    defer { withExtendedLifetime(temp) {} }
    let result = try Shell.docpkgInTerminal(["diff", old, new] + options, environment: environment)
    #expect(result.status == 1, "\(result.standardOutput)")
    #expect(result.standardOutput.contains("Text.txt"))
    #expect(result.standardOutput.contains("\u{1B}[") == colored, "\(options) \(environment)")
  }

  @Test func aPipeIsColoredOnlyWithAlways() throws {
    let (temp, old, new) = try Self.packages()
    defer { withExtendedLifetime(temp) {} }
    let environment = ["TERM": "xterm", "NO_COLOR": ""]
    #expect(!(try Shell.docpkg(["diff", old, new], environment: environment).standardOutput.contains("\u{1B}[")))
    let always = try Shell.docpkg(["diff", "--color", "always", old, new], environment: environment)
    #expect(always.standardOutput.contains("\u{1B}["))
    let bad = try Shell.docpkg(["diff", "--color", "sometimes", old, new])
    #expect(bad.status == 64 && bad.standardError.hasSuffix("(see 'docpkg diff --help')\n"))
  }
}
