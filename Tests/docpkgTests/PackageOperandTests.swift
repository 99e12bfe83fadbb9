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
}
