import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Node kinds and attributes")
struct NodeKindsTests {
  @Test func readsFilesDirectoriesAndLinksWithTheirAttributes() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    #expect(root.kind == .directory)

    let script = try root.node(at: "bin/run.sh")
    #expect(script.kind == .file)
    #expect(script.permissions.rawValue == 0o755)
    #expect(script.size == 23)
    #expect(script.modificationTime == FileTime(seconds: 1_700_000_000))
    #expect(try root.node(at: "bin/private.key").permissions.rawValue == 0o600)

    let link = try root.node(at: "readme-link")
    #expect(link.kind == .symlink)
    #expect(link.symbolicLinkDestination == "README.txt")
    #expect(try root.node(at: "bin-link").kind == .symlink)  // a link to a directory stays a link
    #expect(try root.node(at: "dangling").symbolicLinkDestination == "missing/nowhere.txt")

    #expect(try root.node(at: "Empty").children().isEmpty)
    #expect(try root.node(at: "Nested").permissions.rawValue == 0o750)
    #expect(try root.node(at: "Nested/Empty").permissions.rawValue == 0o700)
    #expect(try root.node(at: "Café ☕.txt").contents() == Data("Unicode name, NFC.\n".utf8))
    #expect(try root.node(at: "日本語/ノート.txt").contents() == Data("こんにちは\n".utf8))
  }

  @Test func nodesMadeInMemory() throws {
    let text = PackageNode(regularFileWithContents: Data("hello".utf8), preferredName: "a.txt")
    let link = PackageNode(symbolicLinkWithDestination: "a.txt")
    let folder = try PackageNode(directoryWithChildren: ["a.txt": text, "link": link])
    #expect(try folder.sortedChildren().map(\.name) == ["a.txt", "link"])
    #expect(try folder.node(at: "a.txt").contents() == Data("hello".utf8))
    #expect(text.permissions.rawValue == 0o644)
    #expect(folder.permissions.rawValue == 0o755)
    #expect(link.size == 5)
    #expect(text.path == "a.txt")
    #expect(text.root === folder)
    #expect(folder.hasUnsavedChanges)
    #expect(text.diskLocation == nil)
  }

  @Test func readingOptionsWithoutMappingAndDiskLocation() throws {
    let temp = try TemporaryDirectory()
    let big = Data((0..<(Int(PackageNode.mappingThreshold) + 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    try temp.write("P.pkg/big.bin", big)
    let root = try PackageNode(contentsOf: temp.filePath.appending("P.pkg"))
    let node = try root.node(at: "big.bin")
    #expect(node.diskLocation == temp.filePath.appending("P.pkg/big.bin"))
    #expect(try node.contents() == big)  // mapped
    let unmapped = try PackageNode(contentsOf: temp.filePath.appending("P.pkg")).node(at: "big.bin")
    #expect(try unmapped.contents(options: .withoutMapping) == big)

    let fd = try node.openForReading()
    defer { try? fd.close() }
    var first = [UInt8](repeating: 0, count: 4)
    _ = try first.withUnsafeMutableBytes { try fd.read(into: $0) }
    #expect(first == Array(big.prefix(4)))
  }

  @Test func editsAreTrackedPerNode() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    #expect(root.hasUnsavedChanges == false)
    _ = try root.node(at: "Images/tram.png").contents()
    #expect(root.hasUnsavedChanges == false)  // reading is not changing
    try root.node(at: "Text.txt").setContents(Data("new".utf8))
    #expect(root.hasUnsavedChanges)
    #expect(try root.node(at: "Text.txt").diskLocation == nil)

    let other = try PackageNode(contentsOf: .init(package))
    try other.node(at: "Index.json").permissions = [.ownerReadWrite]
    #expect(other.hasUnsavedChanges)
  }
}
