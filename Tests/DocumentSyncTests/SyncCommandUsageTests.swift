import Foundation
import TestSupport
import Testing

/// `docpkg sync`'s usage errors: refused before any request, so no server is needed.
@Suite struct SyncCommandUsageTests {
  @Test(arguments: [["--poll-interval", "100"], ["--debounce", "50"]])
  func watchOptionsWithoutWatchAreRefused(_ option: [String]) throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.mydoc/a.txt", "a\n")
    let result = try Shell.docpkg(["sync", temp.appending("Doc.mydoc")] + option)
    #expect(result.status == 64, "\(result.standardError)")
    #expect(
      result.standardError
        == "docpkg: error: \(option[0]) applies only with --watch (see 'docpkg sync --help')\n")
  }
}
