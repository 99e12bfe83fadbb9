import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Children: add, remove, replace, rename, unique names")
struct ChildrenTests {
  @Test(arguments: [
    ("notes.txt", ["notes.txt"], "notes 2.txt"),
    ("notes.txt", ["notes.txt", "notes 2.txt"], "notes 3.txt"),
    ("Images", ["Images"], "Images 2"),
    (".hidden", [".hidden"], ".hidden 2"),
    ("archive.tar.gz", ["archive.tar.gz"], "archive.tar 2.gz"),
    ("free.txt", ["other.txt"], "free.txt"),
  ])
  func uniqueNamesFollowFindersRule(preferred: String, taken: [String], expected: String) {
    #expect(PackageNode.uniqueName(for: preferred, isTaken: taken.contains) == expected)
  }

  @Test func addChildPicksAUniqueNameAndReturnsIt() throws {
    let folder = try PackageNode(directoryWithChildren: [:])
    #expect(try folder.addRegularFile(contents: Data("1".utf8), preferredName: "a.txt") == "a.txt")
    #expect(try folder.addRegularFile(contents: Data("2".utf8), preferredName: "a.txt") == "a 2.txt")
    let third = PackageNode(regularFileWithContents: Data("3".utf8), preferredName: "a.txt")
    let key = try folder.addChild(third)
    #expect(key == "a 3.txt")
    #expect(folder.key(for: third) == "a 3.txt")
    #expect(third.preferredName == "a.txt")
    #expect(try folder.node(at: "a 2.txt").contents() == Data("2".utf8))
  }

  @Test("two names equal after Unicode normalization (NFC and NFD) are refused, saying so")
  func namesEqualAfterNormalization() throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Accents.mydoc")
    // "é.txt" as U+00E9, and as "e" + U+0301: two names on disk, one `String`.
    for name in ["\u{E9}.txt", "e\u{301}.txt"] {
      try Data(name.utf8).write(to: URL(fileURLWithPath: package + "/" + name))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: package).count == 2)
    #expect {
      try PackageNode(contentsOf: .init(package)).children()
    } throws: { error in
      let message = String(describing: error)
      return message.contains("Unicode normalizations (NFC and NFD)") && message.contains(package)
        && !message.contains("not valid UTF-8")
    }
  }

  @Test func removeReplaceAndRename() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(contentsOf: .init(try Fixtures.copy("Notes.mydoc", into: temp)))
    let removed = try root.removeNode(at: "QuickLook/Thumbnail.png")
    #expect(removed.parent == nil)
    #expect(try root.nodeIfPresent(at: "QuickLook/Thumbnail.png") == nil)
    #expect(removed.diskLocation != nil)  // still readable from where it was loaded
    #expect(try removed.contents().count == 177)

    let old = try root.replaceChild(named: "Text.txt", with: PackageNode(regularFileWithContents: Data("v2".utf8)))
    #expect(try old?.contents().starts(with: Data("Trip".utf8)) == true)
    #expect(try root.node(at: "Text.txt").contents() == Data("v2".utf8))

    try root.renameChild(named: "Index.json", to: "Index-old.json")
    #expect(try root.nodeIfPresent(at: "Index.json") == nil)
    #expect(try root.node(at: "Index-old.json").name == "Index-old.json")
    #expect(throws: PackageError.self) { try root.renameChild(named: "Text.txt", to: "Images") }

    try root.moveNode(at: "Images/tram.png", to: "Media/Photos/tram.png")
    #expect(try root.node(at: "Media/Photos/tram.png").contents().count == 306)
    #expect(try root.node(at: "Images").children().isEmpty)
    #expect(try root.node(at: "Media/Photos/tram.png").path == "Media/Photos/tram.png")
  }

  @Test func setFileCreatesIntermediateDirectories() throws {
    let root = try PackageNode(directoryWithChildren: [:])
    try root.setFile(at: "a/b/c.txt", contents: Data("c".utf8))
    #expect(try root.node(at: "a/b").kind == .directory)
    try root.setFile(at: "a/b/c.txt", contents: Data("c2".utf8))
    #expect(try root.node(at: "a/b/c.txt").contents() == Data("c2".utf8))
    let error = #expect(throws: PackageError.self) {
      try root.setFile(at: "x/y.txt", contents: Data(), createIntermediates: false)
    }
    #expect(error?.code == .noSuchEntry)
    #expect(error?.description == "no such entry 'x'")
  }

  @Test func invalidNamesAndCyclesAreRefused() throws {
    let root = try PackageNode(directoryWithChildren: [:])
    for name in ["", ".", "..", "a/b", "nul\u{0}", String(repeating: "x", count: 256)] {
      let error = #expect(throws: PackageError.self) {
        try root.addChild(PackageNode(regularFileWithContents: Data(), preferredName: name))
      }
      #expect(error?.code == .invalidName)
    }
    #expect(throws: PackageError.self) { try root.node(at: "../etc/passwd") }
    let child = try root.makeDirectory(at: "inner")
    #expect(throws: PackageError.self) { try child.addChild(root) }
    let taken = PackageNode(regularFileWithContents: Data(), preferredName: "t")
    try root.addChild(taken)
    #expect(throws: PackageError.self) { try child.addChild(taken) }  // already has a parent
  }

  @Test func walkVisitsInSortedOrderWithPathsAndDepth() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(contentsOf: .init(try Fixtures.copy("Notes.mydoc", into: temp)))
    var seen: [String] = []
    try root.walk { node, path, depth in
      seen.append("\(depth):\(path)")
      return true
    }
    #expect(
      seen == [
        "0:", "1:Images", "2:Images/tram.png", "1:Index.json", "1:QuickLook", "2:QuickLook/Thumbnail.png", "1:Text.txt",
      ])
    var shallow: [String] = []
    try root.walk(maxDepth: 1) { _, path, _ in
      shallow.append(path)
      return true
    }
    #expect(shallow == ["", "Images", "Index.json", "QuickLook", "Text.txt"])
  }
}
