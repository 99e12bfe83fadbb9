import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("read(from:) and matchesContents(of:)")
struct ReloadTests {
  @Test func matchesContentsNoticesChangesOnDisk() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    _ = try root.node(at: "Images/tram.png")
    #expect(root.matchesContents(of: .init(package)))
    try temp.write("Notes.mydoc/Images/new.png", "x")
    #expect(root.matchesContents(of: .init(package)) == false)
  }

  @Test func readFromDiskDropsChangesMadeInMemory() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    try root.setFile(at: "Text.txt", contents: Data("changed".utf8))
    try root.removeNode(at: "Images")
    #expect(root.hasUnsavedChanges)
    try root.read()
    #expect(root.hasUnsavedChanges == false)
    #expect(try root.node(at: "Text.txt").contents().starts(with: Data("Trip".utf8)))
    #expect(try root.node(at: "Images/tram.png").size == 306)
  }
}
