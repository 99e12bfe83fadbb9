import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Errors name the path and the reason, at the access that failed")
struct ErrorTests {
  @Test func missingPackage() throws {
    let temp = try TemporaryDirectory()
    let error = #expect(throws: PackageError.self) { try PackageNode(contentsOf: temp.filePath.appending("nope.pkg")) }
    #expect(error?.code == .noSuchEntry)
    #expect(error?.description.contains("nope.pkg") == true)
  }

  @Test func wrongKindOfNode() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(contentsOf: .init(try Fixtures.copy("Notes.mydoc", into: temp)))
    let notAFile = #expect(throws: PackageError.self) { try root.node(at: "Images").contents() }
    #expect(notAFile?.code == .notARegularFile)
    #expect(notAFile?.description == "not a regular file: 'Images' (it is a directory)")
    let notADirectory = #expect(throws: PackageError.self) { try root.node(at: "Text.txt/inner") }
    #expect(notADirectory?.code == .notADirectory)
    #expect(notADirectory?.description.contains("'Text.txt'") == true)
    #expect(throws: PackageError.self) { try root.node(at: "Text.txt").children() }
  }

  @Test func fileVanishedAfterListing() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    let text = try root.node(at: "Text.txt")
    try FileManager.default.removeItem(atPath: package + "/Text.txt")
    let error = #expect(throws: PackageError.self) { try text.contents() }
    #expect(error?.code == .changedOnDisk)
    #expect(error?.description.contains("Notes.mydoc/Text.txt") == true)
  }

  @Test func fileChangedKindAfterListing() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: .init(package))
    let text = try root.node(at: "Text.txt")
    let images = try root.node(at: "Images")
    try FileManager.default.removeItem(atPath: package + "/Text.txt")
    try FileManager.default.createDirectory(atPath: package + "/Text.txt", withIntermediateDirectories: false)
    try FileManager.default.removeItem(atPath: package + "/Images")
    try FileManager.default.createSymbolicLink(atPath: package + "/Images", withDestinationPath: "QuickLook")
    #expect((#expect(throws: PackageError.self) { try text.contents() })?.code == .changedOnDisk)
    #expect((#expect(throws: PackageError.self) { try images.children() })?.code == .changedOnDisk)
  }
}
