import Foundation
import TestSupport
import Testing

/// A package named on the command line through a symbolic link is read where the link leads, as `ls`,
/// `tar` and `zip` follow a link they are given.
@Suite struct PackageLinkOperandTests {
  @Test(
    "inspect, cat, diff and pack read a package through a link to it",
    arguments: ["link.pkg", "link.pkg/"])
  func linkToPackageIsFollowed(operand: String) throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("V.pkg/a.txt", "a\n")
    try FileManager.default.createSymbolicLink(atPath: temp.appending("link.pkg"), withDestinationPath: "V.pkg")
    let link = temp.appending(operand)
    let listing = try Shell.docpkg(["inspect", link])
    #expect(listing.status == 0, "\(listing.standardError)")
    #expect(listing.standardOutput.contains("a.txt"))
    let cat = try Shell.docpkg(["cat", link, "a.txt"])
    #expect(cat.status == 0, "\(cat.standardError)")
    #expect(cat.standardOutput == "a\n")
    let diff = try Shell.docpkg(["diff", link, temp.appending("V.pkg")])
    #expect(diff.status == 0, "\(diff.standardError)")
    // As `zip -r x.zip link.pkg` does: the link's name, the contents it leads to.
    let archive = temp.appending("x.zip")
    let pack = try Shell.docpkg(["pack", link, "-o", archive, "--quiet"])
    #expect(pack.status == 0, "\(pack.standardError)")
    let names = try Shell.run(
      "python3", ["-c", "import zipfile; print('\\n'.join(zipfile.ZipFile('\(archive)').namelist()))"]
    ).standardOutput
    #expect(names == "link.pkg/\nlink.pkg/a.txt\n")
  }
}
