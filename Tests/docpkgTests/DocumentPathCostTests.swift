import Foundation
import TestSupport
import Testing

/// A `Document`'s open, edit of one file and save cost the folders on the file's path (issue 40): `document-edit`
/// (Benchmarks/Tools/DocumentEdit, built beside `docpkg`) on two packages whose folders hold 5 and 200 files looks
/// at each extra file of the folder it lists twice (the listing, and the save's check that nothing the model loaded
/// changed on disk), and no more.
@Suite("A Document's one-file save costs its path")
struct DocumentPathCostTests {
  /// `Small.pkg` and `Large.pkg`: folders d0…d3, each of `small` or `large` files f0…; returns both paths.
  private func packages(in temp: TemporaryDirectory, small: Int, large: Int) throws -> [String] {
    for (name, count) in [("Small.pkg", small), ("Large.pkg", large)] {
      for folder in 0..<4 {
        for file in 0..<count { try temp.write("\(name)/d\(folder)/f\(file).txt", "\(folder)/\(file)\n") }
      }
    }
    return [temp.appending("Small.pkg"), temp.appending("Large.pkg")]
  }

  /// The `stat` family calls of `document-edit ARGUMENTS`, counted.
  private func stats(_ editor: String, _ arguments: [String], in temp: TemporaryDirectory) throws -> Int {
    let trace = temp.appending("trace-\(UUID().uuidString)")
    let result = try Shell.run(
      "strace", ["-f", "-qq", "-e", "trace=newfstatat,fstatat64,statx,lstat,stat", "-o", trace, editor] + arguments,
      check: false)
    #expect(result.status == 0, "\(arguments): \(result.standardError)")
    return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").count {
      $0.contains("stat") && $0.contains("(")
    }
  }

  @Test(arguments: [[], ["--watched"]])
  func savingOneFileStatsEachEntryOfItsFolderTwice(flags: [String]) throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let editor = URL(fileURLWithPath: Shell.docpkgPath).deletingLastPathComponent().appendingPathComponent(
      "document-edit"
    ).path
    guard FileManager.default.isExecutableFile(atPath: editor) else {
      Issue.record("\(editor) is not built (swift build --product document-edit)")
      return
    }
    let temp = try TemporaryDirectory()
    let (small, large) = (5, 200)
    var seen: [Int] = []
    for package in try packages(in: temp, small: small, large: large) {
      seen.append(try stats(editor, [package, "d2/f3.txt", "edited", "--versions", "none"] + flags, in: temp))
      let text = try String(contentsOfFile: package + "/d2/f3.txt", encoding: .utf8)
      #expect(text.hasPrefix("edited "), "\(text)")
    }
    // The model lists d2 (one `fstatat` per entry) and the save checks what the model loaded (one `lstat` each);
    // just before its swap it checks again only what it replaces, and a watching document's monitor looks at the
    // folders, not at their files. (It was 3 per extra file unwatched, and 7 watching.)
    #expect(seen[1] - seen[0] == 2 * (large - small), "folders of \(small): \(seen[0]) stats; of \(large): \(seen[1])")
  }
}
