import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 35: `put P $'n\xfe.txt'` then `put P $'n\xff.txt'` both succeeded and wrote one file,
/// `n\u{FFFD}.txt`, the second over the first: the arguments reach the command with each bad byte repaired.
@Suite("docpkg put and rm of a name that is not UTF-8")
struct RawNameArgumentTests {
  @Test(arguments: ["put", "rm"])
  func aNameThatIsNotUTF8IsRefusedNamingIt(command: String) throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("P.mydoc/a.txt", "a\n")
    let result = try Shell.run(
      "bash", ["-c", "\"$0\" \(command) \"$1\" $'n\\xfe.txt' </dev/null", Shell.docpkgPath, temp.appending("P.mydoc")],
      check: false)
    #expect(result.status == 1, "\(result.standardError)")
    #expect(result.standardError.contains("not valid UTF-8"), "\(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.appending("P.mydoc")) == ["a.txt"])
  }
}
