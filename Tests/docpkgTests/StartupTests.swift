import Foundation
import TestSupport
import Testing

/// Issue 14 row 7: what `docpkg` loads before it can do anything. libarchive (and with it libxml2 and
/// ICU) is opened on first use, so commands that read no tar and no unusual zip never load it.
@Suite("docpkg start-up")
struct StartupTests {
  /// The shared objects the dynamic linker opened while `docpkg arguments` ran (`LD_DEBUG=files`).
  private func loadedObjects(_ arguments: [String]) throws -> [String] {
    let result = try Shell.docpkg(arguments, environment: ["LD_DEBUG": "files"])
    #expect(result.status == 0, "\(result.standardError.suffix(500))")
    return result.standardError.split(separator: "\n").compactMap { line in
      guard let range = line.range(of: "file=") else { return nil }
      return String(line[range.upperBound...].prefix { $0 != " " && $0 != ";" })
    }
  }

  @Test("neither --version nor reading a package's file loads libarchive or ICU; a tar does")
  func libarchiveIsOpenedOnFirstUse() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    for arguments in [["--version"], ["cat", package, "Text.txt"], ["inspect", package]] {
      let loaded = try loadedObjects(arguments)
      #expect(loaded.contains { $0.contains("libswiftCore") }, "LD_DEBUG reported nothing: \(loaded)")
      #expect(!loaded.contains { $0.contains("libarchive") || $0.contains("libicu") }, "\(arguments): \(loaded)")
    }
    let tar = temp.appending("Notes.tar")
    let pack = try Shell.docpkg(["pack", package, "-o", tar])
    #expect(pack.status == 0, "\(pack.standardError)")
    #expect(try loadedObjects(["cat", tar, "Text.txt"]).contains { $0.contains("libarchive") })
  }
}
