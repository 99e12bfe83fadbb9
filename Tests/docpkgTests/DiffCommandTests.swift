import DocumentPackage
import Foundation
import TestSupport
import Testing

@Suite("docpkg diff")
struct DiffCommandTests {
  static let poem = (1...20).map { "line \($0): the quick brown fox jumps over the lazy dog\n" }.joined()

  /// Two versions of a package with every kind of change: old.pkg and new.pkg in `temp`.
  static func scenario(_ temp: TemporaryDirectory) throws -> (old: String, new: String) {
    try temp.write("old.pkg/Index.json", "{\"pages\": 2}\n")
    try temp.write("old.pkg/Text.txt", poem)
    try temp.write("old.pkg/Data/gone.txt", "deleted\n")
    try temp.write("old.pkg/Data/photo.bin", Data([0, 1, 2, 3, 4]))
    try temp.write("old.pkg/Data/moved.txt", "same bytes, new place\n")
    try temp.write("old.pkg/Chapter 1.txt", poem.uppercased())
    try temp.write("old.pkg/run.sh", "#!/bin/sh\necho hi\n", mode: 0o644)
    try temp.symlink("old.pkg/latest", to: "Text.txt")
    try temp.write("old.pkg/kind", "a file\n")
    try Shell.run("/bin/cp", ["-a", temp.appending("old.pkg"), temp.appending("new.pkg")])
    let new = temp.appending("new.pkg")
    try FileManager.default.removeItem(atPath: new + "/Data/gone.txt")
    try temp.write("new.pkg/Index.json", "{\"pages\": 3}\n")  // same size, edited
    try temp.write("new.pkg/Data/photo.bin", Data([0, 1, 2, 9, 4]))
    try FileManager.default.moveItem(atPath: new + "/Data/moved.txt", toPath: new + "/moved.txt")
    try FileManager.default.removeItem(atPath: new + "/Chapter 1.txt")
    try temp.write(
      "new.pkg/Chapters/One.txt", poem.uppercased().replacingOccurrences(of: "LINE 4:", with: "Line four:"))
    try temp.write("new.pkg/Added.txt", "brand new\n")
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: new + "/run.sh")
    try FileManager.default.removeItem(atPath: new + "/latest")
    try temp.symlink("new.pkg/latest", to: "Index.json")
    try FileManager.default.removeItem(atPath: new + "/kind")
    try temp.symlink("new.pkg/kind", to: "Text.txt")
    return (temp.appending("old.pkg"), new)
  }

  @Test func exitStatusIsZeroOneOrTwo() throws {
    let temp = try TemporaryDirectory()
    let (old, new) = try Self.scenario(temp)
    let same = try Shell.docpkg(["diff", old, old])
    #expect(same.status == 0 && same.stdout.isEmpty)
    #expect(try Shell.docpkg(["diff", old, new]).status == 1)
    let missing = try Shell.docpkg(["diff", old, temp.appending("nope.pkg")])
    #expect(missing.status == 2)
    #expect(missing.standardError.hasPrefix("docpkg: error: ") && missing.standardError.contains("nope.pkg"))
    #expect(try Shell.docpkg(["diff", "--json", "--stat", old, new]).status > 1)
    let help = try Shell.docpkg(["diff", "--help"])
    #expect(help.status == 0 && help.standardOutput.contains("\"identical\": BOOL"))
  }

  @Test func nameStatusListsEveryChange() throws {
    let temp = try TemporaryDirectory()
    let (old, new) = try Self.scenario(temp)
    let result = try Shell.docpkg(["diff", "--name-status", old, new])
    #expect(result.status == 1, "\(result.standardError)")
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.contains("A\tAdded.txt"))
    #expect(lines.contains("A\tChapters/"))
    #expect(lines.contains { $0.hasPrefix("R0") && $0.hasSuffix("\tChapter 1.txt\tChapters/One.txt") })
    #expect(lines.contains("D\tData/gone.txt"))
    #expect(lines.contains("R100\tData/moved.txt\tmoved.txt"))
    #expect(lines.contains("M\tData/photo.bin"))
    #expect(lines.contains("M\tIndex.json"))
    #expect(lines.contains("T\tkind"))
    #expect(lines.contains("M\tlatest"))
    #expect(lines.contains("M\trun.sh"))
    #expect(lines.count == 10)
  }

  /// Our --name-status and git's agree on files and links: adds, deletes, edits, exact and similar
  /// renames, an executable bit, a link target, a file that became a link (git lists no directories).
  @Test func nameStatusAgreesWithGit() throws {
    let temp = try TemporaryDirectory()
    try temp.write("old/a.txt", "alpha\n")
    try temp.write("old/edit.txt", Self.poem)
    try temp.write("old/gone.txt", "deleted file\n")
    try temp.write("old/dir/exact.txt", "moved without change\n")
    try temp.write("old/dir/similar.txt", Self.poem.uppercased())
    try temp.write("old/binary.bin", Data((0..<200).map { UInt8($0 % 7) }))
    try temp.write("old/tool.sh", "#!/bin/sh\n", mode: 0o644)
    try temp.write("old/becomes-link", "a file\n")
    try temp.symlink("old/link", to: "a.txt")
    try Shell.run("/bin/cp", ["-a", temp.appending("old"), temp.appending("new")])
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temp.appending("new/tool.sh"))
    try FileManager.default.removeItem(atPath: temp.appending("new/becomes-link"))
    try temp.symlink("new/becomes-link", to: "a.txt")
    try FileManager.default.removeItem(atPath: temp.appending("new/link"))
    try temp.symlink("new/link", to: "edit.txt")
    try temp.write("new/edit.txt", Self.poem + "one more line\n")
    try FileManager.default.removeItem(atPath: temp.appending("new/gone.txt"))
    try FileManager.default.moveItem(
      atPath: temp.appending("new/dir/exact.txt"), toPath: temp.appending("new/exact.txt"))
    try FileManager.default.removeItem(atPath: temp.appending("new/dir/similar.txt"))
    try temp.write(
      "new/other/similar.txt", Self.poem.uppercased().replacingOccurrences(of: "LINE 9:", with: "line nine:"))
    try temp.write("new/added.txt", "a new file\n")
    try temp.write("new/binary.bin", Data((0..<200).map { UInt8($0 % 5) }))

    let ours = try Shell.docpkg(["diff", "--name-status", temp.appending("old"), temp.appending("new")])
    #expect(ours.status == 1, "\(ours.standardError)")
    let git = try Shell.run(
      "git", ["diff", "--no-index", "--name-status", "-M", "old", "new"], directory: temp.path, check: false)
    #expect(git.status == 1, "\(git.standardError)")
    let gitLines = git.standardOutput.split(separator: "\n").map { line in
      line.split(separator: "\t").map { field in
        field.hasPrefix("old/") || field.hasPrefix("new/") ? String(field.dropFirst(4)) : String(field)
      }.joined(separator: "\t")
    }
    let ourLines = ours.standardOutput.split(separator: "\n").map(String.init).filter { !$0.hasSuffix("/") }
    #expect(ourLines.sorted() == gitLines.sorted())
    #expect(gitLines.count == 9)
  }

  @Test func jsonFollowsTheSchema() throws {
    let temp = try TemporaryDirectory()
    let (old, new) = try Self.scenario(temp)
    let result = try Shell.docpkg(["diff", "--json", "-p", old, new])
    #expect(result.status == 1)
    let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    #expect(json["version"] as? Int == 1)
    #expect(json["identical"] as? Bool == false)
    let counts = try #require(json["counts"] as? [String: Int])
    #expect(counts == ["added": 2, "deleted": 1, "modified": 4, "renamed": 2, "typeChanged": 1])
    let changes = try #require(json["changes"] as? [[String: Any]])
    let byPath = Dictionary(uniqueKeysWithValues: changes.map { ($0["path"] as! String, $0) })
    let rename = try #require(byPath["moved.txt"])
    #expect(rename["status"] as? String == "R" && rename["oldPath"] as? String == "Data/moved.txt")
    #expect(rename["similarity"] as? Int == 100)
    let mode = try #require(byPath["run.sh"])
    #expect(mode["details"] as? [String] == ["mode"])
    #expect((mode["old"] as? [String: Any])?["mode"] as? String == "0644")
    #expect((mode["new"] as? [String: Any])?["mode"] as? String == "0755")
    let link = try #require(byPath["latest"])
    #expect((link["new"] as? [String: Any])?["target"] as? String == "Index.json")
    let edited = try #require(byPath["Index.json"])
    #expect(edited["patch"] as? String == "@@ -1 +1 @@\n-{\"pages\": 2}\n+{\"pages\": 3}\n")
    let binary = try #require(byPath["Data/photo.bin"])
    #expect(((binary["new"] as? [String: Any])?["sha256"] as? String)?.count == 64)
    #expect(byPath["Data/gone.txt"]?["new"] == nil && byPath["Added.txt"]?["old"] == nil)
    let same = try Shell.docpkg(["diff", "--json", old, old])
    #expect(same.status == 0 && same.standardOutput.contains("\"identical\":true,"))
  }

  @Test func jsonIsTheLibrarysEncodingWithSortedKeys() throws {
    let temp = try TemporaryDirectory()
    let (old, new) = try Self.scenario(temp)
    let first = try Shell.docpkg(["diff", "--json", "-p", old, new]).standardOutput
    let second = try Shell.docpkg(["diff", "--json", "-p", old, new]).standardOutput
    #expect(first == second)  // JSONEncoder keeps no key order: sorted keys make the output stable
    #expect(first.hasPrefix(#"{"changes":[{"#) && first.hasSuffix(#""identical":false,"version":1}"# + "\n"))
    let decoded = try JSONDecoder().decode(PackageDifference.self, from: Data(first.utf8))
    #expect(decoded.count == 10 && decoded.counts[.renamed] == 2)
    #expect(
      decoded.contains {
        if case .renamed(from: "Data/moved.txt", to: "moved.txt", 100, _, _, _, _) = $0 { true } else { false }
      })
  }

  @Test func patchAppliesWithGNUPatch() throws {
    let temp = try TemporaryDirectory()
    let (old, new) = try Self.scenario(temp)
    let result = try Shell.docpkg(["diff", "-p", old, new])
    #expect(result.status == 1)
    let text = result.standardOutput
    #expect(
      text.contains(
        "Binary files differ: size 5 → 5 bytes, sha256 08bb5e5d6eaac1049ede0893d30ed022b1a4d9b5b48db414871f51c9cb35283d → "
      ))
    #expect(text.contains("rename from Data/moved.txt\nrename to moved.txt\n"))
    #expect(text.contains("old mode 0644\nnew mode 0755\n"))
    #expect(!text.contains("\u{1B}["))  // no colors when not on a terminal
    // Apply to a copy of the old text files: the edited text files must come out as in new.
    try Shell.run("/bin/cp", ["-a", old, temp.appending("patched")])
    try Shell.run(
      "patch", ["-p1", "-s", "-i", try temp.write("changes.patch", text)], directory: temp.appending("patched"),
      check: false)
    for file in ["Index.json", "Added.txt"] {
      #expect(
        FileManager.default.contents(atPath: temp.appending("patched/\(file)"))
          == FileManager.default.contents(atPath: new + "/" + file))
    }
  }

  @Test func statAndDefaultSummary() throws {
    let temp = try TemporaryDirectory()
    let (old, new) = try Self.scenario(temp)
    let stat = try Shell.docpkg(["diff", "--stat", old, new]).standardOutput
    #expect(stat.contains(" Index.json ") && stat.contains("| 2 +-\n"))
    #expect(stat.contains("| Bin 5 -> 5 bytes\n"))
    #expect(stat.hasSuffix(" 9 files changed, 3 insertions(+), 3 deletions(-)\n"), "\(stat)")
    let summary = try Shell.docpkg(["diff", old, new]).standardOutput
    #expect(summary.contains("M    Index.json"))
    #expect(summary.contains("mode 0644 → 0755"))
    #expect(summary.contains("link Text.txt → Index.json"))
    #expect(summary.hasSuffix("10 changes: 2 added, 1 deleted, 4 modified, 2 renamed, 1 type changed\n"))
  }

  /// Colors only on a terminal: `script` gives the command a pseudo-terminal.
  @Test func colorsOnATerminal() throws {
    guard Shell.has("script") else {
      Issue.record("script (util-linux) is not installed")
      return
    }
    let temp = try TemporaryDirectory()
    try temp.write("a/x.txt", "1\n")
    try temp.write("b/x.txt", "22\n")
    try temp.write("b/new.txt", "n\n")
    let command = "'\(Shell.docpkgPath)' diff '\(temp.appending("a"))' '\(temp.appending("b"))'"
    // A terminal that takes colours, whatever the environment the tests run in (TERM=dumb and NO_COLOR turn them off).
    let colorTerminal = ["TERM": "xterm-256color", "NO_COLOR": ""]
    let onTerminal = try Shell.run(
      "script", ["-qec", command, "/dev/null"], environment: colorTerminal, check: false
    ).standardOutput
    #expect(onTerminal.contains("\u{1B}[32mA"))
    #expect(onTerminal.contains("\u{1B}[33mM"))
    let piped = try Shell.docpkg(["diff", temp.appending("a"), temp.appending("b")]).standardOutput
    #expect(!piped.contains("\u{1B}") && piped.hasPrefix("A    new.txt"))
  }

  @Test func timesAreComparedOnlyWithTheFlag() throws {
    let temp = try TemporaryDirectory()
    try temp.write("a/x.txt", "same\n")
    try temp.write("b/x.txt", "same\n")
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: temp.appending("a/x.txt"))
    #expect(try Shell.docpkg(["diff", temp.appending("a"), temp.appending("b")]).status == 0)
    let timed = try Shell.docpkg(["diff", "--times", "--name-status", temp.appending("a"), temp.appending("b")])
    #expect(timed.status == 1 && timed.standardOutput.contains("M\tx.txt"))
  }

  /// Unchanged hard-linked files and files of different sizes are never opened.
  @Test func readsOnlyFilesItMustCompare() throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let temp = try TemporaryDirectory()
    try temp.write("a/linked.bin", Data(repeating: 7, count: 10_000))
    try temp.write("a/grown.txt", "short\n")
    try temp.write("a/same-size.txt", "12345\n")
    try temp.makeDirectory("b")
    try FileManager.default.linkItem(atPath: temp.appending("a/linked.bin"), toPath: temp.appending("b/linked.bin"))
    try temp.write("b/grown.txt", "much longer now\n")
    try temp.write("b/same-size.txt", "12345\n")
    let trace = try Shell.run(
      "strace", ["-f", "-e", "trace=open,openat", Shell.docpkgPath, "diff", temp.appending("a"), temp.appending("b")],
      check: false)
    #expect(trace.status == 1)
    let opened = trace.standardError
    #expect(opened.contains("same-size.txt"))
    #expect(!opened.contains("linked.bin"))
    #expect(!opened.contains("grown.txt"))
  }

  @Test func recursiveLooksInsideNestedZips() throws {
    let temp = try TemporaryDirectory()
    try temp.write("x/a.txt", "one\n")
    try temp.write("x/s.txt", "same\n")
    try temp.makeDirectory("a")
    try temp.makeDirectory("b")
    try Shell.run("zip", ["-q", temp.appending("a/Index.zip"), "a.txt", "s.txt"], directory: temp.appending("x"))
    try temp.write("x/a.txt", "two\n")
    try temp.write("x/n.txt", "new\n")
    try Shell.run(
      "zip", ["-q", temp.appending("b/Index.zip"), "a.txt", "s.txt", "n.txt"], directory: temp.appending("x"))
    let result = try Shell.docpkg(["diff", "--recursive", temp.appending("a"), temp.appending("b")])
    #expect(result.status == 1, "\(result.standardError)")
    #expect(result.standardOutput.contains("Index.zip!/a.txt"))
    #expect(result.standardOutput.contains("A    Index.zip!/n.txt"))
    #expect(!result.standardOutput.contains("s.txt"))
  }
}
