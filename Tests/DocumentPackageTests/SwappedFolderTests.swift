import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// The model opens an entry by its path below the package's root without following a link in any
/// component: a folder another program swapped for a link after the model listed it
/// (`mv sub sub.bak; ln -s /elsewhere sub`) is refused, not read through.
@Suite("a folder swapped for a link after it was listed")
struct SwappedFolderTests {
  /// A package with `sub/f.txt` and `sub/deeper/g.txt`, listed down to `sub`, then `sub` swapped for
  /// a link to a folder outside with the same names.
  private func swapped() throws -> (TemporaryDirectory, PackageNode, PackageNode) {
    let temp = try TemporaryDirectory()
    try temp.write("P.mydoc/sub/f.txt", "inside\n")
    try temp.write("P.mydoc/sub/deeper/g.txt", "inside\n")
    try temp.write("outside/f.txt", "outside\n")
    try temp.write("outside/deeper/g.txt", "outside\n")
    let package = try PackageNode(contentsOf: FilePath(temp.appending("P.mydoc")))
    let sub = try #require(try package.children()["sub"])
    _ = try sub.children()
    try FileManager.default.moveItem(atPath: temp.appending("P.mydoc/sub"), toPath: temp.appending("sub.bak"))
    try FileManager.default.createSymbolicLink(
      atPath: temp.appending("P.mydoc/sub"), withDestinationPath: temp.appending("outside"))
    return (temp, package, sub)
  }

  @Test("reading a file listed before its folder was swapped fails, naming the file")
  func readingAFileIsRefused() throws {
    let (temp, _, sub) = try swapped()
    let file = try #require(try sub.children()["f.txt"])
    let error = #expect(throws: PackageError.self) { try file.contents() }
    #expect(error?.code == .changedOnDisk)
    #expect(
      error?.description
        == "cannot open: a folder on the path was replaced by a link: '\(temp.appending("P.mydoc/sub/f.txt"))' "
        + "(not followed: it may lead out of the package)")
    #expect(throws: PackageError.self) { try file.openForReading() }
  }

  @Test("listing a folder below the swapped one fails, naming it")
  func listingBelowIsRefused() throws {
    let (temp, _, sub) = try swapped()
    let deeper = try #require(try sub.children()["deeper"])
    let error = #expect(throws: PackageError.self) { try deeper.children() }
    #expect(error?.code == .changedOnDisk)
    #expect(
      error?.description
        == "cannot list directory: a folder on the path was replaced by a link: "
        + "'\(temp.appending("P.mydoc/sub/deeper"))' (not followed: it may lead out of the package)")
  }
}
