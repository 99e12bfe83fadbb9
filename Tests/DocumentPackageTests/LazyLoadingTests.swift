import Foundation
import Testing
import TestSupport
@testable import DocumentPackage

@Suite("Lazy loading")
struct LazyLoadingTests {
  @Test func fileBytesAreReadOnFirstAccessNotAtOpen() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    let text = try root.node(at: "Text.txt")
    // Changed on disk after the node was listed but before its bytes were asked for: the new bytes show.
    try Data("rewritten\n".utf8).write(to: URL(fileURLWithPath: package + "/Text.txt"))
    #expect(try text.contents() == Data("rewritten\n".utf8))
  }
}
