import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("TextPatch: Myers line diff and unified hunks")
struct TextPatchTests {
  static func patch(_ old: String, _ new: String, context: Int = 3) -> TextPatch {
    TextPatch(from: Array(old.utf8), to: Array(new.utf8), context: context)
  }

  /// Applies a patch's hunks to `old` (checking every context and deleted line), as `patch` would.
  static func apply(_ patch: TextPatch, to old: String) throws -> String {
    let lines = Array(old.utf8).split(separator: 0x0A, omittingEmptySubsequences: false)
    var oldLines = lines.enumerated().map {
      String(decoding: $0.element, as: UTF8.self) + ($0.offset < lines.count - 1 ? "\n" : "")
    }
    if oldLines.last == "" { oldLines.removeLast() }
    var result: [String] = []
    var next = 0
    for hunk in patch.hunks {
      let start = hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1
      result += oldLines[next..<start]
      next = start
      for line in hunk.lines {
        switch line.kind {
        case .context, .deleted:
          guard oldLines[next] == line.text else { throw CocoaError(.fileReadCorruptFile) }
          next += 1
          if line.kind == .context { result.append(line.text) }
        case .inserted: result.append(line.text)
        }
      }
    }
    result += oldLines[next...]
    return result.joined()
  }

  @Test func smallEditMatchesDiffU() throws {
    let old = (1...10).map { "\($0)\n" }.joined()
    let new = old.replacingOccurrences(of: "5\n", with: "five\n")
    #expect(Self.patch(old, new).unifiedText == "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n")
    let diffU = try Self.diffU(old, new)
    #expect(Self.patch(old, new).unifiedText == diffU)
  }

  @Test func missingFinalNewlineIsMarked() {
    #expect(
      Self.patch("a\nb", "a\nc").unifiedText
        == "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")
    #expect(Self.patch("", "").hunks.isEmpty)
    #expect(Self.patch("same\n", "same\n").hunks.isEmpty)
  }

  @Test func separateHunksAndCounts() throws {
    let old = (1...30).map { "line \($0)\n" }.joined()
    let new = old.replacingOccurrences(of: "line 2\n", with: "").replacingOccurrences(
      of: "line 28\n", with: "line 28\nextra\n")
    let patch = Self.patch(old, new)
    #expect(patch.hunks.map(\.header) == ["@@ -1,5 +1,4 @@", "@@ -26,5 +25,6 @@"])
    #expect(patch.insertions == 1 && patch.deletions == 1)
    let diffU = try Self.diffU(old, new)
    #expect(patch.unifiedText == diffU)
  }

  @Test(arguments: 1...25) func randomEditsApplyBack(seed: Int) throws {
    var generator = SplitMix64(seed: UInt64(seed))
    let words = ["alpha", "beta", "gamma", "delta", "", "}", "{"]
    let old = (0..<Int.random(in: 0...60, using: &generator)).map { _ in words.randomElement(using: &generator)! + "\n"
    }
    var new = old
    for _ in 0..<Int.random(in: 0...12, using: &generator) {
      let index = Int.random(in: 0...new.count, using: &generator)
      switch Int.random(in: 0..<3, using: &generator) {
      case 0 where index < new.count: new.remove(at: index)
      case 1: new.insert(words.randomElement(using: &generator)! + "\n", at: index)
      default: if index < new.count { new[index] = "changed \(index)\n" }
      }
    }
    for context in [0, 3] {
      let patch = Self.patch(old.joined(), new.joined(), context: context)
      #expect(try Self.apply(patch, to: old.joined()) == new.joined())
    }
    // The shortest script: no more changed lines than `diff` finds.
    let ours = Self.patch(old.joined(), new.joined())
    let theirs = try Self.diffU(old.joined(), new.joined())
    let theirChanges = theirs.split(separator: "\n").filter { ($0.hasPrefix("+") || $0.hasPrefix("-")) }.count
    #expect(ours.insertions + ours.deletions <= theirChanges)
  }

  @Test func veryDifferentFilesStillApply() throws {
    let old = (0..<3000).map { "old \($0)\n" }.joined()
    let new = (0..<3000).map { "new \($0)\n" }.joined()
    let patch = Self.patch(old, new)
    #expect(patch.deletions == 3000 && patch.insertions == 3000)
    #expect(try Self.apply(patch, to: old) == new)
  }

  /// The hunks `diff -u` prints for the same change, headers dropped.
  static func diffU(_ old: String, _ new: String) throws -> String {
    let temp = try TemporaryDirectory()
    let a = try temp.write("a", old), b = try temp.write("b", new)
    let output = try Shell.run("/usr/bin/diff", ["-u", a, b], check: false).standardOutput
    return output.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).joined(separator: "\n")
  }
}
