import Foundation
import Testing

@testable import DocumentPackage

@Suite("PackageDifference: renames")
struct DifferenceRenameTests {
  static let poem = (1...20).map { "line number \($0) of a poem that is long enough\n" }.joined()

  @Test func exactRenameAcrossDirectoriesPrefersTheSameName() throws {
    let old = try DiffTrees.make(["a/notes.txt": "same bytes", "a/copy.txt": "same bytes", "link": "->t"])
    let new = try DiffTrees.make(["b/notes.txt": "same bytes", "moved-link": "->t"])
    let difference = try new.difference(from: old)
    #expect(
      DiffTrees.lines(difference) == [
        "D a", "D a/copy.txt", "A b", "R100 a/notes.txt b/notes.txt", "R100 link moved-link",
      ])
    let rename = difference.first { $0.kind == .renamed && $0.path == "b/notes.txt" }!
    #expect(rename.details.isEmpty)
    #expect(rename.old?.sha256 == rename.new?.sha256)
    #expect(rename.new?.sha256?.count == 64)
  }

  @Test func renameWithSmallEditIsScoredLikeGit() throws {
    let edited = Self.poem.replacingOccurrences(of: "line number 7 ", with: "LINE NUMBER 7 ")
    let old = try DiffTrees.make(["poem.txt": Self.poem])
    let new = try DiffTrees.make(["verse.txt": edited])
    let difference = try new.difference(from: old)
    #expect(difference.count == 1)
    guard case .renamed(let from, let to, let similarity, _, _, let details, _) = difference[0] else {
      Issue.record("not a rename: \(difference[0])")
      return
    }
    #expect(from == "poem.txt" && to == "verse.txt")
    #expect(details == .contents)
    #expect((90..<100).contains(similarity))
  }

  @Test func dissimilarFilesAndEmptyFilesAreNotRenames() throws {
    let old = try DiffTrees.make(["poem.txt": Self.poem, "empty-a": ""])
    let new = try DiffTrees.make(["other.txt": String(Self.poem.reversed()), "empty-b": ""])
    let lines = DiffTrees.lines(try new.difference(from: old))
    #expect(lines == ["D empty-a", "A empty-b", "A other.txt", "D poem.txt"])
  }

  @Test func thresholdAndSwitchAreOptions() throws {
    let half = String(Self.poem.prefix(Self.poem.count / 2))
    let old = try DiffTrees.make(["poem.txt": Self.poem])
    let new = try DiffTrees.make(["half.txt": half + String(repeating: "other words here\n", count: 5)])
    var options = PackageDifference.Options()
    options.renameThreshold = 90
    #expect(!DiffTrees.lines(try new.difference(from: old, options: options)).contains { $0.hasPrefix("R") })
    options.renameThreshold = 30
    #expect(DiffTrees.lines(try new.difference(from: old, options: options)).first?.hasPrefix("R") == true)
    options.detectsRenames = false
    let exact = try DiffTrees.make(["moved.txt": Self.poem])
    #expect(DiffTrees.lines(try exact.difference(from: old, options: options)) == ["A moved.txt", "D poem.txt"])
  }

  @Test func binaryFilesRenameOnlyWhenExact() throws {
    let old = try PackageNode(directoryWithChildren: [
      "a.bin": PackageNode(regularFileWithContents: Data([0, 1, 2, 3] + Array(repeating: 7, count: 100)))
    ])
    let new = try PackageNode(directoryWithChildren: [
      "b.bin": PackageNode(regularFileWithContents: Data([0, 1, 2, 3] + Array(repeating: 7, count: 99) + [8]))
    ])
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["D a.bin", "A b.bin"])
  }
}
