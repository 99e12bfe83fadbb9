import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("PackageDifference: what is read, and containers")
struct DifferenceReadingTests {
  /// A tree of logging sources, so the test sees which files the comparison reads.
  static func tree(_ files: [String: String], side: String, log: ReadLog) throws -> PackageNode {
    let root = try PackageNode(directoryWithChildren: [:])
    for (path, text) in files {
      try root.setNode(
        PackageNode(regularFileWithSource: LoggingSource(text, name: "\(side):\(path)", log: log)), at: path)
    }
    return root
  }

  @Test func readsOnlyWhatItMustInWalkOrderAndOnce() throws {
    let log = ReadLog()
    let old = try Self.tree(
      [
        "b/same.txt": "equal", "a.txt": "short", "c.txt": "12345", "gone.txt": "moved away", "z.txt": "zz",
      ], side: "old", log: log)
    let new = try Self.tree(
      [
        "b/same.txt": "equal", "a.txt": "much longer", "c.txt": "54321", "d/moved.txt": "moved away", "z.txt": "zz",
      ], side: "new", log: log)
    let difference = try new.difference(from: old)
    #expect(DiffTrees.lines(difference) == ["M a.txt", "M c.txt", "A d", "R100 gone.txt d/moved.txt"])
    // a.txt differs in size: not read. Same-size pairs and rename candidates: read once, in walk order.
    #expect(
      log.names == [
        "old:b/same.txt", "new:b/same.txt", "old:c.txt", "new:c.txt", "new:d/moved.txt", "old:gone.txt",
        "old:z.txt", "new:z.txt",
      ])
  }

  @Test func nothingIsReadForRenamesWithoutBothSides() throws {
    let log = ReadLog()
    let old = try Self.tree(["keep.txt": "k"], side: "old", log: log)
    let new = try Self.tree(["keep.txt": "kk", "added.txt": "a", "more/added.txt": "b"], side: "new", log: log)
    #expect(
      DiffTrees.lines(try new.difference(from: old)) == ["A added.txt", "M keep.txt", "A more", "A more/added.txt"])
    #expect(log.names.isEmpty)
  }

  /// A package on disk against the same files served by content sources (as an archive read in
  /// place serves them): equal, and the sources are read once each, in walk order.
  @Test func diskPackageAgainstSourceBackedCopy() throws {
    let temp = try TemporaryDirectory()
    let package = try PackageNode(contentsOf: .init(try Fixtures.copy("Notes.mydoc", into: temp)))
    let log = ReadLog()
    let copy = try PackageNode(directoryWithChildren: [:])
    var paths: [String] = []
    try package.walk { node, path, _ in
      switch node.kind {
      case .directory: if !path.isEmpty { try copy.makeDirectory(at: path).permissions = node.permissions }
      case .file:
        let source = LoggingSource(data: try node.contents(), name: path, log: log)
        try copy.setNode(PackageNode(regularFileWithSource: source), at: path)
        try copy.node(at: path).permissions = node.permissions
        paths.append(path)
      case .symlink: try copy.setNode(PackageNode(symbolicLinkWithDestination: node.symbolicLinkDestination), at: path)
      }
      return true
    }
    try #require(paths.count == 4)
    #expect(try copy.difference(from: package).isEmpty)
    #expect(log.names == paths)  // same-size pairs: each source read once, in walk order

    try copy.setNode(PackageNode(regularFileWithSource: LoggingSource("{}", name: "new", log: log)), at: "Index.json")
    var text = try package.node(at: "Text.txt").contents()
    text[text.count - 2] ^= 1  // same size, one bit off near the end
    try copy.setNode(
      PackageNode(regularFileWithSource: LoggingSource(data: text, name: "text", log: log)), at: "Text.txt")
    #expect(DiffTrees.lines(try copy.difference(from: package)) == ["M Index.json", "M Text.txt"])
    #expect(DiffTrees.lines(try package.difference(from: copy)) == ["M Index.json", "M Text.txt"])
  }

  /// Issue 40: a comparison of two large trees on disk held every node of both (and every same-size pair) until
  /// it ended: 122 MB for two packages of 100,000 files, linear in the file count. Pairs are compared in windows
  /// during the walk and each directory it listed is forgotten when done; one the caller had listed is kept.
  @Test func aComparisonForgetsWhatItListedAndKeepsWhatTheCallerListed() throws {
    let temp = try TemporaryDirectory()
    let count = 300  // six windows of 50
    for side in ["A", "B"] {
      for index in 0..<count { _ = try temp.write("\(side).pkg/d\(index % 5)/f\(index).txt", "\(index)\n") }
    }
    _ = try temp.write("B.pkg/d3/f3.txt", "x\n")  // same size, other bytes
    let old = try PackageNode(contentsOf: .init(temp.appending("A.pkg")))
    let new = try PackageNode(contentsOf: .init(temp.appending("B.pkg")))
    let listedByCaller = try new.node(at: "d1")
    _ = try listedByCaller.children()
    func compare() throws -> [String] {
      var engine = DiffEngine(options: PackageDifference.Options())
      engine.window = 50
      return DiffTrees.lines(try engine.run(old: old, new: new))
    }
    #expect(try compare() == ["M d3/f3.txt"])
    #expect(old.heldChildren == nil && new.heldChildren != nil)  // new holds d1, which the caller listed
    #expect(try new.node(at: "d1").heldChildren != nil)
    #expect(try new.node(at: "d0").heldChildren == nil && (try old.node(at: "d1").heldChildren == nil))
    // Listed again, the trees compare the same, in one window or several.
    #expect(try compare() == ["M d3/f3.txt"])
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M d3/f3.txt"])
  }

  /// Issue 40: with no pair to compare (a copy made of hard links, one file replaced), every directory the walk
  /// left waited for a window of comparisons that never came: `diff` of a package and such a copy at 1,000,000
  /// files held 888 MB. A directory is forgotten as the walk leaves it, unless it holds a pair still to compare.
  @Test func aDirectoryIsForgottenAsTheWalkLeavesItUnlessItHoldsAPairToCompare() throws {
    let temp = try TemporaryDirectory()
    let folders = (0..<6).map { "d\($0)" }
    for folder in folders {
      for index in 0..<20 {
        let path = try temp.write("A.pkg/\(folder)/f\(index).txt", "\(folder) \(index)\n")
        try FileManager.default.createDirectory(
          atPath: temp.appending("B.pkg/\(folder)"), withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: path, toPath: temp.appending("B.pkg/\(folder)/f\(index).txt"))
      }
    }
    try FileManager.default.removeItem(atPath: temp.appending("B.pkg/d1/f7.txt"))
    _ = try temp.write("B.pkg/d1/f7.txt", "d1 9\n")  // same size, other bytes: a pair to compare
    let old = try PackageNode(contentsOf: .init(temp.appending("A.pkg")))
    let new = try PackageNode(contentsOf: .init(temp.appending("B.pkg")))
    let directories = try folders.map { try old.node(at: $0) }
    let held = Held()
    var options = PackageDifference.Options()
    options.isCancelled = {
      held.most = max(held.most, directories.filter { $0.heldChildren != nil }.count)
      if directories[5].heldChildren != nil { held.pairHeldAtTheEnd = directories[1].heldChildren != nil }
      return false
    }
    #expect(DiffTrees.lines(try new.difference(from: old, options: options)) == ["M d1/f7.txt"])
    #expect(held.most == 2)  // the folder walked and d1, which holds the pair; before, all six
    #expect(held.pairHeldAtTheEnd)
    #expect(directories.allSatisfy { $0.heldChildren == nil })
  }

  private final class Held: @unchecked Sendable {
    var most = 0
    var pairHeldAtTheEnd = false
  }

  @Test func containersAreComparedInsideThroughTheHook() throws {
    // A toy container format: lines of `path=contents`.
    func expand(_ node: PackageNode, _ path: String) throws -> PackageNode? {
      guard path.hasSuffix(".box") else { return nil }
      var entries: [String: String] = [:]
      for line in String(decoding: try node.contents(), as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        entries[String(parts[0])] = String(parts[1])
      }
      return try DiffTrees.make(entries)
    }
    let old = try DiffTrees.make(["Index.box": "Document.iwa=v1\nMeta.plist=m", "notes.txt": "a"])
    let new = try DiffTrees.make(["Index.box": "Document.iwa=v2\nPreview.jpg=p", "notes.txt": "b"])
    var options = PackageDifference.Options()
    options.expandingContainers = expand
    let difference = try new.difference(from: old, options: options)
    #expect(DiffTrees.lines(difference) == ["M Index.box", "M notes.txt"])
    let nested = try #require(difference[0].nested)
    #expect(DiffTrees.lines(nested) == ["M Document.iwa", "D Meta.plist", "A Preview.jpg"])
    #expect(difference[1].nested == nil)
    #expect(try new.difference(from: old).first?.nested == nil)
  }

  @Test func patchesAndDigestsWhenAsked() throws {
    let old = try PackageNode(directoryWithChildren: [
      "a.txt": PackageNode(regularFileWithContents: Data("one\ntwo\nthree\n".utf8)),
      "b.bin": PackageNode(regularFileWithContents: Data([0, 1, 2])),
    ])
    let new = try PackageNode(directoryWithChildren: [
      "a.txt": PackageNode(regularFileWithContents: Data("one\n2\nthree\n".utf8)),
      "b.bin": PackageNode(regularFileWithContents: Data([0, 1, 3])),
      "c.txt": PackageNode(regularFileWithContents: Data("new\n".utf8)),
    ])
    var options = PackageDifference.Options()
    options.includesTextPatches = true
    let difference = try new.difference(from: old, options: options)
    #expect(difference[0].patch?.unifiedText == "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n")
    #expect(difference[1].patch == nil)
    #expect(difference[1].old?.sha256 == "ae4b3280e56e2faf83f414a6e3dabe9d5fbe18976544c05fed121accb85b53fc")
    #expect(difference[1].new?.isText == false)
    #expect(difference[2].patch?.unifiedText == "@@ -0,0 +1 @@\n+new\n")
  }
}
