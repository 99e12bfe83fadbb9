import Foundation
import TestSupport
import Testing

/// `docpkg COMMAND --help`: the shared arguments (`@OptionGroup`) and defaults said once.
@Suite("docpkg help")
struct HelpCommandTests {
  static let commands: [[String]] = [
    ["inspect"], ["cat"], ["put"], ["rm"], ["check"], ["diff"], ["pack"], ["unpack"], ["versions", "list"],
    ["versions", "show"], ["versions", "restore"], ["versions", "resolve"], ["versions", "prune"],
    ["versions", "remove"], ["versions", "adopt"],
  ]

  @Test(arguments: commands)
  func defaultsAreSaidOnce(command: [String]) throws {
    let result = try Shell.docpkg(command + ["--help"])
    #expect(result.status == 0, "\(result.standardError)")
    // One option's help, wrapped over lines, joined back: "... (default: 10)" and never "(default 10). (default: 10)".
    let help = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    var rest = Substring(help)
    while let range = rest.range(of: "(default: ") {
      let before = rest[..<range.lowerBound].suffix(60)
      let option = before.split(separator: " -").last ?? before
      #expect(!option.contains("default"), "\(command): \(option)(default: ...")
      rest = rest[range.upperBound...]
    }
  }

  @Test func sharedArgumentsReadTheSameEverywhere() throws {
    var entryHelp: Set<String> = []
    for command in ["cat", "put", "rm"] {
      let help = try Shell.docpkg([command, "--help"]).standardOutput
      #expect(help.contains("<package> <entry>"), "\(command)")
      let line = help.split(separator: "\n").first { $0.contains("<entry>") && $0.contains("path inside") }
      entryHelp.insert(String(line ?? "none"))
    }
    #expect(entryHelp.count == 1, "\(entryHelp)")
    for command in [["inspect"], ["diff"], ["versions", "list"]] {
      #expect(try Shell.docpkg(command + ["--help"]).standardOutput.contains("--json"), "\(command)")
    }
    for command in ["pack", "unpack"] {
      #expect(try Shell.docpkg([command, "--help"]).standardOutput.contains("--quiet"), "\(command)")
    }
  }

  /// Outsider attack on issue 37 (F11): `docpkg` alone printed the help and exited 0. As git does, it is a usage
  /// error: the help on standard error, nothing on standard output, a failure status.
  @Test func noCommandAtAllIsAUsageError() throws {
    let result = try Shell.docpkg([])
    #expect(result.status == 64, "\(result.standardError)")
    #expect(result.stdout.isEmpty)
    #expect(result.standardError.contains("USAGE: docpkg <subcommand>"), "\(result.standardError)")
  }
}
