import Foundation
import TestSupport
import Testing

/// Issue 14 row 7: `docpkg` links no HTTP stack and no full Foundation or ICU; its sync commands hand
/// the command line to `docpkg-sync`, found beside it, with the same arguments, help and errors.
@Suite("docpkg and docpkg-sync")
struct SyncHelperTests {
  /// The shared libraries `path` needs (`readelf -d`'s NEEDED entries).
  private func neededLibraries(_ path: String) throws -> [String] {
    let output = try Shell.run("readelf", ["-d", path]).standardOutput
    return output.split(separator: "\n").compactMap { line in
      guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]")
      else { return nil }
      return String(line[line.index(after: open)..<close])
    }
  }

  @Test(.enabled(if: Shell.has("readelf")))
  func docpkgLinksNeitherFoundationNorICU() throws {
    let needed = try neededLibraries(Shell.docpkgPath)
    #expect(needed.contains("libFoundationEssentials.so") || !needed.contains { $0.hasPrefix("libFoundation") })
    for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
      #expect(!needed.contains(library), "docpkg needs \(library): \(needed)")
    }
  }

  @Test func syncCommandsRunThroughTheHelper() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let list = try Shell.docpkg(["remote", "list", package])
    #expect(list.status == 0, "\(list.standardError)")
    #expect(list.standardOutput.isEmpty)
    // A usage error is the same one line, whichever executable reports it.
    let usage = try Shell.docpkg(["push"])
    #expect(usage.status == 64)
    #expect(usage.standardError.hasPrefix("docpkg: error: "), "\(usage.standardError)")
    #expect(usage.standardError.hasSuffix("(see 'docpkg push --help')\n"), "\(usage.standardError)")
    let help = try Shell.docpkg(["push", "--help"])
    #expect(help.status == 0 && help.standardOutput.contains("--quiet"), "\(help.standardOutput)")
  }

  @Test func aMissingHelperIsOneLineNamingIt() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let alone = temp.appending("docpkg")
    // Copied by another process: a descriptor this process held open for writing could be inherited by a
    // child another test forks meanwhile, and exec would then fail with "Text file busy".
    try Shell.run("/bin/cp", [Shell.docpkgPath, alone])
    let result = try Shell.run(alone, ["remote", "list", package], check: false)
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "docpkg: error: cannot run the network helper '\(temp.appending("docpkg-sync"))' (install it beside docpkg): "
        + "No such file or directory\n", "\(result.standardError)")
    #expect(try Shell.run(alone, ["--version"]).standardOutput == "0.1.0\n")
  }
}
