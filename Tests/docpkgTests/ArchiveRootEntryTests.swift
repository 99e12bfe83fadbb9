import Foundation
import TestSupport
import Testing

/// The archive's root as an entry: a tar made with `tar -C DIR .` starts with `./`, which is the folder
/// it unpacks into, not an entry; and `pack .` names the package after its folder, writing no `./`.
@Suite struct ArchiveRootEntryTests {
  @Test("a tar made with tar -C DIR . unpacks and lists as GNU tar and bsdtar read it, without its ./ entry")
  func dotEntryIsTheRoot() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("T/f", "x\n")
    _ = try temp.write("T/sub/g", "y\n")
    let archive = temp.appending("t.tar")
    try Shell.run("tar", ["-cf", archive, "-C", temp.appending("T"), "."])
    let names = try Shell.run("tar", ["-tf", archive]).standardOutput
    #expect(names.hasPrefix("./\n"), "\(names)")
    let inspect = try Shell.docpkg(["inspect", archive])
    #expect(inspect.status == 0, "\(inspect.standardError)")
    let listing = inspect.standardOutput
    #expect(!listing.contains(".//") && listing.contains("sub"), "\(listing)")
    let out = try temp.makeDirectory("o")
    let result = try Shell.docpkg(["unpack", archive, "-o", out, "--quiet"])
    #expect(result.status == 0, "\(result.standardError)")
    let unpacked = try FileManager.default.subpathsOfDirectory(atPath: out).sorted()
    let file = unpacked.first { $0.hasSuffix("sub/g") }
    #expect(file != nil, "\(unpacked)")
    if let file { #expect(try String(contentsOfFile: out + "/" + file, encoding: .utf8) == "y\n") }
  }

  @Test("pack . and pack DIR/. name the package after its folder and write no ./ entry", arguments: [".", "V.pkg/."])
  func packingDotNamesTheFolder(operand: String) throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("V.pkg/a.txt", "a\n")
    let directory = operand == "." ? temp.appending("V.pkg") : temp.path
    let archive = temp.appending("x.zip")
    try Shell.run(Shell.docpkgPath, ["pack", operand, "-o", archive, "--quiet"], directory: directory)
    let names = try Shell.run(
      "python3", ["-c", "import zipfile; print('\\n'.join(zipfile.ZipFile('\(archive)').namelist()))"]
    ).standardOutput
    #expect(names == "V.pkg/\nV.pkg/a.txt\n")
  }
}
