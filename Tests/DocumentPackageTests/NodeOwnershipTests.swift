import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// The ownership rule of `PackageNode`: a directory owns its children, a child does not own its
/// directory, so a node outliving its root is cut from the tree but keeps what it needs to be read.
@Suite("Node ownership")
struct NodeOwnershipTests {
  @Test func aNodeWhoseRootIsReleasedIsCutFromTheTreeButStillReadable() throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let expected = try Data(contentsOf: URL(fileURLWithPath: path + "/Images/tram.png"))
    weak var releasedRoot: PackageNode?
    let image: PackageNode
    do {
      let root = try PackageNode(contentsOf: FilePath(path))
      image = try root.node(at: "Images/tram.png")
      #expect(image.path == "Images/tram.png" && image.root === root)
      releasedRoot = root
    }
    #expect(releasedRoot == nil)
    #expect(image.parent == nil && image.path == "" && image.root === image)
    #expect(image.name == "tram.png")
    #expect(try image.contents() == expected)
    // It can join another tree, under its own name.
    let other = try PackageNode(directoryWithChildren: [:])
    #expect(try other.addChild(image) == "tram.png")
    #expect(image.path == "tram.png")
  }

  @Test func aDirectoryCutFromItsTreeKeepsItsChildren() throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let images: PackageNode
    do { images = try PackageNode(contentsOf: FilePath(path)).node(at: "Images") }
    #expect(images.path == "")
    #expect(try images.node(at: "tram.png").path == "tram.png")
  }

  @Test func aNodeCutFromAnEditedTreeIsNoLongerRecorded() throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: FilePath(path))
    let editor = PackageEditor(root: root)
    let images = try root.removeNode(at: "Images")
    #expect(editor.undoStack.undoCount == 1)
    try images.renameChild(named: "tram.png", to: "bus.png")  // out of the tree: not an undo step
    #expect(editor.undoStack.undoCount == 1)
  }
}
