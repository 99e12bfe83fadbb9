import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// A pack of a package whose folder another program swaps for a link after the model listed it
/// (`mv a a.bak; ln -s /elsewhere a`): nothing outside the package is read, and the pack fails
/// naming the path.
@Suite("pack of a package whose folder was swapped for a link")
struct PackSwappedFolderTests {
  @Test("a folder swapped for a link to outside the package is not read through", arguments: ["zip", "tar"])
  func swappedFolderIsNotReadThrough(format: String) throws {
    let temp = try TemporaryDirectory()
    try temp.write("P.mydoc/index.txt", "index\n")
    try temp.write("P.mydoc/a/b/f.txt", "inside\n")
    try temp.write("P.mydoc/a/g.txt", "inside too\n")
    try temp.write("outside/b/f.txt", "outside\n")
    try temp.write("outside/g.txt", "outside\n")
    let package = try PackageNode(contentsOf: FilePath(temp.appending("P.mydoc")))
    // Listed by the library: the root and `a`, not `a/b`.
    #expect(try package.children()["a"]?.children().keys.sorted() == ["b", "g.txt"])
    try FileManager.default.moveItem(atPath: temp.appending("P.mydoc/a"), toPath: temp.appending("a.bak"))
    try FileManager.default.createSymbolicLink(
      atPath: temp.appending("P.mydoc/a"), withDestinationPath: temp.appending("outside"))
    let archive = FilePath(temp.appending("P.\(format)"))
    let error = #expect(throws: PackageError.self) {
      try ArchivePacker.pack(package, to: archive, options: PackOptions(format: ArchiveFormat(name: format)!))
    }
    #expect(error?.code == .changedOnDisk)
    #expect(error?.description.contains("a folder on the path was replaced by a link") == true, "\(error!)")
    #expect(error?.path.hasPrefix(temp.appending("P.mydoc/a")) == true, "\(error!)")
    #expect(!FileManager.default.fileExists(atPath: archive.string))
  }
}
