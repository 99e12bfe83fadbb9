import Foundation
import TestSupport
import Testing

/// `pack` and `check` of something that is not a package, and `pack --format` against OUT's extension.
@Suite("docpkg operands")
struct PackageOperandTests {
  @Test(arguments: [["pack", "FILE", "-o", "OUT/a.zip"], ["check", "FILE"]])
  func aPlainFileIsNotAPackage(arguments: [String]) throws {
    let temp = try TemporaryDirectory()
    let file = try temp.write("plain.txt", "not a package")
    let arguments = arguments.map {
      $0.replacingOccurrences(of: "FILE", with: file).replacingOccurrences(of: "OUT", with: temp.path)
    }
    let result = try Shell.docpkg(arguments)
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty, "\(result.standardOutput)")
    #expect(result.standardError == "docpkg: error: not a package (a package is a directory): '\(file)'\n")
    #expect(!FileManager.default.fileExists(atPath: temp.appending("a.zip")))
  }

  @Test(arguments: ["tgz", "TGZ", "tar.gz"])
  func aShortFormatNameIsTheFormatItsExtensionNames(format: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let output = temp.appending("Notes.tgz")
    let result = try Shell.docpkg(["pack", package, "-o", output, "--format", format, "--quiet"])
    #expect(result.status == 0, "\(result.standardError)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
    #expect(bytes.prefix(2) == Data([0x1F, 0x8B]))  // gzip
    let unnamed = temp.appending("Notes.archive")
    #expect(try Shell.docpkg(["pack", package, "-o", unnamed, "--format", format, "--quiet"]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: unnamed)).prefix(2) == Data([0x1F, 0x8B]))
  }

  @Test func aFormatThatDisagreesWithTheExtensionIsRefused() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let output = temp.appending("a.tar.gz")
    let result = try Shell.docpkg(["pack", package, "-o", output, "--format", "zip"])
    #expect(result.status == 64)
    #expect(
      result.standardError
        == "docpkg: error: --format zip and the extension of '\(output)' (tar.gz) disagree (see 'docpkg pack --help')\n"
    )
    #expect(!FileManager.default.fileExists(atPath: output))
    // A document format that is a zip agrees with zip.
    #expect(try Shell.docpkg(["pack", package, "-o", temp.appending("a.odt"), "--format", "zip"]).status == 0)
  }
}
