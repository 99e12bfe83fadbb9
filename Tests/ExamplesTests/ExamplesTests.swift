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
}
