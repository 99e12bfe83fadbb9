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

  /// F7: `--max-entries 3` on a zip of five files wrote three of them before refusing the fourth. A zip's central
  /// directory says how many entries it holds: one past the limit is refused before anything is created.
  @Test(.enabled(if: Shell.has("strace") && Shell.has("zip")))
  func aZipWithTooManyEntriesIsRefusedBeforeAnyFileIsWritten() throws {
    let temp = try TemporaryDirectory()
    for index in 1...5 { _ = try temp.write("Q.pkg/f\(index).txt", "\(index)\n") }
    try Shell.run("zip", ["-q", "-r", "Q.zip", "Q.pkg"], directory: temp.path)
    let (result, calls) = try Shell.traceDocpkg(
      ["unpack", temp.appending("Q.zip"), "-o", temp.appending("out"), "--max-entries", "3"], calls: "openat,mkdirat")
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "docpkg: error: too many entries in '\(temp.appending("Q.zip"))' (more than 3; unpack with a higher --max-entries to allow it)\n"
    )
    #expect(!calls.contains { $0.contains(".txt\"") && $0.contains("O_CREAT") }, "\(calls.joined(separator: "\n"))")
    #expect(!calls.contains { $0.contains("mkdirat") && $0.contains("Q.pkg") }, "\(calls.joined(separator: "\n"))")
    #expect(!FileManager.default.fileExists(atPath: temp.appending("out")))
  }

  /// A tar bomb is refused as a bomb, not as a "zip bomb", and the message names the option that lets it through.
  @Test func eachLimitNamesTheOptionThatRaisesIt() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("P/a.txt", "a\n")
    // 40 MiB of zeros: past the 16 MiB the ratio allows any archive, about 1,000 times the gzip's size.
    #expect(FileManager.default.createFile(atPath: temp.appending("P/zeros"), contents: Data(count: 40 << 20)))
    let archive = temp.appending("p.tar.gz")
    #expect(try Shell.docpkg(["pack", temp.appending("P"), "-o", archive, "--quiet"]).status == 0)
    for (options, option) in [
      ([String](), "--max-ratio"), (["--max-ratio", "inf", "--max-size", "1000"], "--max-size"),
    ] {
      let result = try Shell.docpkg(["unpack", archive, "-o", temp.appending("out")] + options)
      #expect(result.status == 1)
      #expect(
        result.standardError.hasSuffix("unpack with a higher \(option) to allow it)\n"), "\(result.standardError)")
      #expect(!result.standardError.contains("zip"), "\(result.standardError)")
      #expect(!FileManager.default.fileExists(atPath: temp.appending("out")))
    }
  }
}
