import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37: `unpack --max-ratio nan` unpacked a 300 MB bomb of a 306 KB zip (a `nan` limit is
/// never exceeded), and `--max-ratio 0.001` was reported as "more than 0 times".
@Suite("docpkg unpack's limit options")
struct UnpackLimitOptionTests {
  @Test(arguments: [
    ["--max-ratio", "nan"], ["--max-ratio", "0.5"], ["--max-ratio=-5"], ["--max-entries", "0"], ["--max-size=-1"],
  ])
  func aLimitThatCannotBeMeantIsAUsageError(option: [String]) throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("P/a.txt", "a\n")
    let archive = temp.appending("p.zip")
    #expect(try Shell.docpkg(["pack", temp.appending("P"), "-o", archive, "--quiet"]).status == 0)
    let result = try Shell.docpkg(["unpack", archive, "-o", temp.appending("out")] + option)
    #expect(result.status == 64, "\(option): \(result.standardError)")
    #expect(result.standardError.contains("must"), "\(option): \(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: temp.appending("out")))
  }
}
