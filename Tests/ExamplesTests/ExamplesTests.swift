import Foundation
import TestSupport
import Testing

/// Runs the examples in `Examples/` as a user would, from their built executables.
@Suite("Examples")
struct ExamplesTests {
  /// The executable `name` built beside `docpkg`.
  private func example(_ name: String) -> String {
    URL(fileURLWithPath: Shell.docpkgPath).deletingLastPathComponent().appendingPathComponent(name).path
  }

  @Test func notesDocumentCreatesEditsUndoesSavesAndReopens() throws {
    let temp = try TemporaryDirectory()
    let output = try Shell.run(example("NotesDocument"), [temp.path], check: false)
    #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
    #expect(output.standardOutput.contains("ok: reopened: the picture's bytes are intact"))
    #expect(output.standardOutput.contains("ok: saved after undo: the earlier text is on disk"))
    // The package on disk is a plain folder that other tools read.
    let text = try String(contentsOfFile: temp.appending("Trip.mydoc/Text.txt"), encoding: .utf8)
    #expect(text == "Tram to Graz")
    #expect(FileManager.default.fileExists(atPath: temp.appending("Trip.mydoc/Images/tram.png")))
  }

  @Test func shareAsZipPacksUnpacksAndComparesWithoutLoss() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let work = try temp.makeDirectory("work")
    let output = try Shell.run(example("ShareAsZip"), [package, work], check: false)
    #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
    #expect(output.standardOutput.contains("ok: the unpacked copy is identical to the original"))
    #expect(output.standardOutput.contains("ok: the zip, read in place, matches the original"))
    #expect(output.standardOutput.contains("changed by the receiver: modified Café ☕.txt"))
    // The zip is a real zip: Info-ZIP's own test of it passes.
    try Shell.run("unzip", ["-tq", work + "/Attributes.pkg.zip"])
  }

  @Test("an app linking DocumentArchive keeps zlib's own crc32 (only docpkg interposes libdeflate's)")
  func libraryDoesNotReplaceZlibCRC() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let work = try temp.makeDirectory("work")
    // ShareAsZip unpacks and reads a zip, so libarchive checks CRCs; the dynamic linker reports
    // where it binds each call to crc32.
    let output = try Shell.run(
      example("ShareAsZip"), [package, work], environment: ["LD_DEBUG": "bindings"], check: false)
    #expect(output.status == 0, "\(output.standardOutput)\(output.standardError.suffix(500))")
    let bindings = output.standardError.split(separator: "\n").filter {
      $0.contains("libarchive") && $0.contains("`crc32'")
    }
    #expect(!bindings.isEmpty, "libarchive never called crc32")
    #expect(bindings.allSatisfy { $0.contains("libz.so") }, "\(bindings)")
  }

  @Test func resolveConflictMergesThenKeepsBothSidesAndResolves() throws {
    let temp = try TemporaryDirectory()
    let output = try Shell.run(example("ResolveConflict"), [temp.path], check: false)
    #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
    #expect(output.standardOutput.contains("ok: both edits are in the package"))
    #expect(output.standardOutput.contains("conflict: Ben's side of Text.txt is kept as version"))
    #expect(output.standardOutput.contains("ok: resolved with Ben's side; no unresolved conflicts left"))
    #expect(output.standardOutput.contains("ok: Ann's side is still kept as a version: nothing was lost"))
    // The command-line tool sees the same history.
    let list = try Shell.docpkg(["versions", "list", temp.appending("Plans.mydoc")])
    #expect(list.status == 0, "\(list.standardError)")
  }

  // The example's own timeout is long and the waits generous: in a loaded full run, this test's steps
  // can be minutes apart (the example exits after the changes it is told to expect, not on time).
  @Test func liveDocumentReloadsMergesAndFollowsOutsideChangesAsTheyHappen() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Live.mydoc/Text.txt", "first\n")
    try temp.write("Live.mydoc/Todo.txt", "- nothing yet\n")
    let package = temp.appending("Live.mydoc")
    let app = try RunningProcess(
      example("LiveDocument"), [package, "--edit", "Mine.txt=mine", "--changes", "3", "--timeout", "900"])
    defer { app.stop() }
    #expect(
      await app.wait(seconds: 120) { $0.standardOutput.contains("ready: watching") },
      "\(app.standardOutput)\(app.standardError)")
    // 1. Another process saves the package atomically: merged with the app's unsaved edit.
    let put = try Shell.docpkg(["put", package, "Text.txt"], input: Data("from docpkg\n".utf8))
    #expect(put.status == 0, "\(put.standardError)")
    #expect(
      await app.wait(seconds: 120) { $0.standardOutput.contains("Text.txt now reads: \"from docpkg\\n\"") },
      "\(app.standardOutput)")
    #expect(app.standardOutput.contains("outside change 1: merged"), "\(app.standardOutput)")
    // 2. A script saves a file as editors do: a new file renamed over the old one. (Written beside the package:
    // one written inside it is a change of its own when the machine is slow enough to report it before the rename,
    // and the app, which stops after three outside changes, would stop before the move.)
    let script =
      "import os, sys; open(sys.argv[2], 'w').write('- from python\\n'); os.replace(sys.argv[2], sys.argv[1])"
    try Shell.run("python3", ["-c", script, package + "/Todo.txt", temp.appending("Todo.txt~")])
    #expect(
      await app.wait(seconds: 120) { $0.standardOutput.contains("Todo.txt now reads: \"- from python\\n\"") },
      "\(app.standardOutput)"
    )
    #expect(app.standardOutput.contains("outside change 2: merged"), "\(app.standardOutput)")
    // 3. The package is renamed: followed.
    let moved = temp.appending("Moved.mydoc")
    try Shell.run("mv", [package, moved])
    #expect(await app.waitForExit(seconds: 120), "\(app.standardOutput)")
    #expect(app.status == 0, "\(app.standardOutput)\(app.standardError)")
    let output = app.standardOutput
    #expect(output.contains("outside change 3: followed"), "\(output)")
    #expect(output.contains("the document is now at") && output.contains("Moved.mydoc"), "\(output)")
    #expect(output.contains("done after 3 outside changes"), "\(output)")
    // The app's own edit was saved at the new place, on top of both outside changes.
    #expect(try String(contentsOfFile: moved + "/Mine.txt", encoding: .utf8) == "mine")
    #expect(try String(contentsOfFile: moved + "/Text.txt", encoding: .utf8) == "from docpkg\n")
    #expect(try String(contentsOfFile: moved + "/Todo.txt", encoding: .utf8) == "- from python\n")
  }

  @Test func liveDocumentSavesADeletedPackageElsewhere() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Live.mydoc/Text.txt", "kept\n")
    let package = temp.appending("Live.mydoc")
    let app = try RunningProcess(
      example("LiveDocument"), [package, "--edit", "Text.txt=unsaved", "--changes", "1", "--timeout", "900"])
    defer { app.stop() }
    #expect(
      await app.wait(seconds: 120) { $0.standardOutput.contains("ready: watching") },
      "\(app.standardOutput)\(app.standardError)")
    try Shell.run("rm", ["-rf", package])
    #expect(await app.waitForExit(seconds: 120), "\(app.standardOutput)")
    #expect(app.status == 0, "\(app.standardOutput)\(app.standardError)")
    #expect(app.standardOutput.contains("outside change 1: deleted"), "\(app.standardOutput)")
    #expect(app.standardOutput.contains("saved what the document held to"), "\(app.standardOutput)")
    #expect(try String(contentsOfFile: package + "-rescued/Text.txt", encoding: .utf8) == "unsaved")
  }

  @Test(.enabled(if: Shell.has("unshare"), "needs unshare (util-linux)"))
  func liveDocumentSaysWhyItCannotWatchAtTheInstanceLimit() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Live.mydoc/Text.txt", "x\n")
    guard (try? Shell.run("unshare", ["-r", "true"], check: false).status) == 0 else { return }  // no user namespaces
    // No inotify instance left for this user (in a user namespace of its own): the document opens
    // unwatched and says which limit to raise.
    let script = "echo 0 > /proc/sys/user/max_inotify_instances && exec \"$0\" \"$@\""
    let output = try Shell.run(
      "unshare", ["-r", "/bin/sh", "-c", script, example("LiveDocument"), temp.appending("Live.mydoc")], check: false)
    #expect(output.status == 1)
    #expect(output.standardOutput.contains("not watching:"), "\(output.standardOutput)")
    #expect(output.standardOutput.contains("fs.inotify.max_user_instances"), "\(output.standardOutput)")
  }
}
