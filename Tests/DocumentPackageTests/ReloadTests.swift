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
    let tram = try root.node(at: "Images/tram.png")
    #expect(root.matchesContents(of: .init(package)))
    // Images was not listed (the walk looked its one name up): an entry added there is not compared, the file found is.
    try temp.write("Notes.mydoc/Images/new.png", "x")
    #expect(root.matchesContents(of: .init(package)))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: package + "/Images/tram.png")
    #expect(root.matchesContents(of: .init(package)) == false)
    // Listed, a directory's names are compared too.
    let fresh = try PackageNode(contentsOf: .init(package))
    _ = try fresh.node(at: "Images").children()
    #expect(tram.parent != nil && fresh.matchesContents(of: .init(package)))
    try temp.write("Notes.mydoc/Images/newer.png", "x")
    #expect(fresh.matchesContents(of: .init(package)) == false)
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
