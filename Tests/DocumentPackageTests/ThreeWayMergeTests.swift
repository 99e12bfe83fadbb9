import Testing

@testable import DocumentPackage

/// The one three-way merge (`ThreeWayMerge.swift`): the decision per path and the directory rule,
/// as the merging save, a document's outside changes and a pull take them.
@Suite("the three-way merge")
struct ThreeWayMergeTests {
  @Test(
    "the decision per path",
    arguments: [
      ("a", "a", "a", MergeDecision.unchanged),
      ("a", "b", "a", .ours),
      ("a", "a", "b", .theirs),
      ("a", "b", "b", .same),
      ("a", "b", "c", .conflict),
      (nil, "b", nil, .ours),  // added on our side
      ("a", nil, "a", .ours),  // removed on our side
      ("a", nil, nil, .same),  // removed on both
      (nil, "b", "c", .conflict),  // added on both, differently
    ] as [(String?, String?, String?, MergeDecision)])
  func decision(_ base: String?, _ ours: String?, _ theirs: String?, _ expected: MergeDecision) {
    #expect(MergeDecision(base: base, ours: ours, theirs: theirs) == expected)
  }

  @Test("flattened trees: each side's changes taken, a conflict takes theirs and is listed")
  func flattened() {
    let base = ["a.txt": 1, "b.txt": 1, "c.txt": 1, "d.txt": 1]
    let ours = ["a.txt": 2, "b.txt": 1, "c.txt": 3, "d.txt": 1, "new.txt": 1]
    let theirs = ["a.txt": 1, "b.txt": 2, "c.txt": 4]
    let merge = ThreeWayMerge(base: base, ours: ours, theirs: theirs, directory: 0)
    #expect(merge.result == ["a.txt": 2, "b.txt": 2, "c.txt": 4, "new.txt": 1])
    #expect(merge.conflicts == ["c.txt"])
    #expect(merge.merged == ["b.txt", "d.txt"])
  }

  @Test("an entry kept below a directory the other side removed brings the directory back")
  func directoryRule() {
    let base = ["Pages": 0, "Pages/p1": 0]
    let ours = ["Pages": 0, "Pages/p1": 0, "Pages/p1/new.txt": 1]  // added below what theirs removed
    let merge = ThreeWayMerge(base: base, ours: ours, theirs: [:], directory: 0)
    #expect(merge.result == ["Pages": 0, "Pages/p1": 0, "Pages/p1/new.txt": 1])
    #expect(merge.conflicts.isEmpty)
    #expect(MergeDecision.parentDirectories(of: "a/b/c") == ["a/b", "a"])
  }
}
