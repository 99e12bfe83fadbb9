import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Lazy loading")
struct LazyLoadingTests {
  @Test func openingReadsOnlyTheRoot() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    #expect(root.isLoaded == false)
    // A file added after open but before the first listing is seen: nothing was listed at open.
    try temp.write("Notes.mydoc/Added.txt", "late")
    #expect(try root.child(named: "Added.txt") != nil)
  }

  @Test func fileBytesAreReadOnFirstAccessNotAtOpen() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    let text = try root.node(at: "Text.txt")
    #expect(text.isLoaded == false)
    // Changed on disk after the node was listed but before its bytes were asked for: the new bytes show.
    try temp.write("Notes.mydoc/Text.txt", "rewritten\n")
    #expect(try text.contents() == Data("rewritten\n".utf8))
    #expect(text.isLoaded)
    // Once read, the bytes are kept (as FileWrapper keeps them), whatever happens on disk.
    try temp.write("Notes.mydoc/Text.txt", "rewritten again\n")
    #expect(try text.contents() == Data("rewritten\n".utf8))
  }

  @Test func lookingUpOneFileListsNoDirectoryOnItsPath() throws {
    let temp = try TemporaryDirectory()
    for directory in 0..<20 {
      for file in 0..<5 { try temp.write("Big.pkg/d\(directory)/f\(file).txt", "\(directory).\(file)") }
    }
    let root = try PackageNode(contentsOf: .init(temp.appending("Big.pkg")))
    let file = try root.node(at: "d7/f3.txt")
    #expect(try file.contents() == Data("7.3".utf8))
    // Each name on the way was looked up alone: neither the root nor d7 was listed.
    let d7 = try #require(file.parent)
    #expect(!root.isLoaded && !d7.isLoaded)
    #expect(file.path == "d7/f3.txt" && d7.parent === root)
    // Listed later, the directories hold the very nodes the walk found, beside the others.
    #expect(try root.children()["d7"] === d7 && root.children().count == 20)
    #expect(try d7.children()["f3.txt"] === file && d7.children().count == 5)
    #expect(try root.children().values.filter(\.isLoaded).map(\.name) == ["d7"])
  }

  @Test func aNameNotFoundAloneIsLookedUpInTheListing() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Big.pkg/d1/f.txt", "f")
    let root = try PackageNode(contentsOf: .init(temp.appending("Big.pkg")))
    #expect(try root.nodeIfPresent(at: "d1/missing.txt") == nil)
    #expect(try root.node(at: "d1").isLoaded)  // asked for a name that is not there: listed, as before
    #expect(throws: PackageError.self) { try root.node(at: "d1/f.txt/below") }
  }

  @Test func immediateReadsEverythingAtOpen() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package), options: .immediate)
    // Everything was read at open: deleting the files afterwards changes nothing in the model.
    try FileManager.default.removeItem(atPath: package)
    #expect(try root.node(at: "Images/tram.png").contents().count == 306)
    #expect(try root.node(at: "Text.txt").contents().starts(with: Data("Trip to Lisbon".utf8)))
  }
}
