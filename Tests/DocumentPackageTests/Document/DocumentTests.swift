import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Contents that fail to read, so that a save fails for real (root can write anywhere, so
/// permissions cannot make it fail in CI containers).
private final class UnreadableSource: FileContentSource {
  var size: Int64 { 4 }
  func readAll() throws -> Data { throw PackageError(.io, "cannot read", path: "unreadable source") }
  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws { _ = try readAll() }
}

private func file(_ path: String) throws -> String {
  String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
}

/// Runs the autosave timer the document has set (it must have set one) (advancing `clock` by `delay`) and waits until
/// that autosave has finished.
private func runAutosave(_ document: Document, _ clock: TestClock, after delay: Duration) async {
  await clock.waitForSleeper()
  let timer = await document.autosaveTask
  clock.advance(by: delay)
  await timer?.value
}

@Suite("Document")
struct DocumentTests {
  @Test func opensLazilyAndEditsSavesAndReopens() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    #expect(await document.state == .normal)
    #expect(try await document.read { $0.isLoaded } == false)  // the root was not even listed
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("saved".utf8)) }
    #expect(await document.hasUnsavedChanges)
    try await document.save()
    #expect(await !document.hasUnsavedChanges)
    #expect(try file(path + "/Text.txt") == "saved")
    try await document.close()
    let again = try await Document(contentsOf: FilePath(path))
    #expect(try await again.read { String(decoding: try $0.node(at: "Text.txt").contents(), as: UTF8.self) } == "saved")
  }

  @Test func undoAcrossASaveWritesTheEarlierContents() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let original = try file(path + "/Text.txt")
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit { try $0.setContents(Data("one".utf8), at: "Text.txt") }
    try await document.save()
    try await document.undo()
    #expect(await document.hasUnsavedChanges)
    try await document.save()
    #expect(try file(path + "/Text.txt") == original)
    try await document.redo()
    #expect(await document.hasUnsavedChanges)
    try await document.save()
    #expect(try file(path + "/Text.txt") == "one")
    try await document.undo()
    try await document.undo()  // nothing more to undo: a no-op
    try await document.save()
    #expect(try file(path + "/Text.txt") == original)
  }

  @Test func undoARemovalAcrossASaveBringsTheFilesBack() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let tram = try Data(contentsOf: URL(fileURLWithPath: path + "/Images/tram.png"))
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit { try $0.removeNode(at: "Images") }
    try await document.edit { try $0.renameNode(at: "Index.json", to: "Index2.json") }
    try await document.save()
    #expect(!FileManager.default.fileExists(atPath: path + "/Images"))
    try await document.undo()
    try await document.undo()
    try await document.save()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/Images/tram.png")) == tram)
    #expect(FileManager.default.fileExists(atPath: path + "/Index.json"))
    #expect(!FileManager.default.fileExists(atPath: path + "/Index2.json"))
    #expect(await !document.hasUnsavedChanges)
  }

  @Test func aConflictIsReportedAndResolvedEitherWay() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    // Unwatched: this is about what a save (or a check) finds; a watching document reacts to the
    // outside write by itself (OutsideChangeTests).
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    _ = try await document.read { try $0.node(at: "Text.txt").contents() }
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("mine".utf8)) }
    try temp.write("Notes.mydoc/Text.txt", "theirs")  // another program writes meanwhile
    await #expect(throws: PackageError.self) { try await document.save() }
    #expect(await document.state == .inConflict)
    #expect(try file(path + "/Text.txt") == "theirs")
    try await document.save(overwritingOutsideChanges: true)  // keep mine
    #expect(await document.state == .normal)
    #expect(try file(path + "/Text.txt") == "mine")

    try temp.write("Notes.mydoc/Text.txt", "theirs again")
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("mine again".utf8)) }
    await #expect(throws: PackageError.self) { try await document.save() }
    try await document.revert()  // keep theirs
    #expect(await document.state == .normal)
    #expect(await !document.hasUnsavedChanges)
    #expect(await !document.canUndo)
    #expect(
      try await document.read { String(decoding: try $0.node(at: "Text.txt").contents(), as: UTF8.self) }
        == "theirs again")
  }

  @Test func aFailedSaveIsASavingErrorAndKeepsTheChanges() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit { try $0.setNode(PackageNode(regularFileWithSource: UnreadableSource()), at: "Broken.txt") }
    await #expect(throws: PackageError.self) { try await document.save() }
    #expect(await document.state == .savingError)
    #expect(await document.lastError != nil)
    #expect(await document.hasUnsavedChanges)
    #expect(!FileManager.default.fileExists(atPath: path + "/Broken.txt"))
    try await document.undo()
    try await document.save()
    #expect(await document.state == .normal)
    #expect(await document.lastError == nil)
  }

  @Test func readOnlyDocumentsDisableEditing() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path), options: .readOnly)
    #expect(await document.state == .editingDisabled)
    #expect(try await document.read { try $0.node(at: "Text.txt").size } > 0)
    await #expect(throws: PackageError.self) { try await document.edit { try $0.removeNode(at: "Text.txt") } }
    await #expect(throws: PackageError.self) { try await document.save() }
    #expect(!FileManager.default.fileExists(atPath: temp.appending(".Notes.mydoc.docpkg-lock")))
  }

  @Test(.enabled(if: getuid() != 0, "root may write to read-only folders"))
  func anUnwritableLocationDisablesEditing() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: temp.path)
    let document = try await Document(contentsOf: FilePath(path))
    #expect(await document.state == .editingDisabled)
  }

  @Test func closeSavesByDefaultAndEndsTheDocument() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    let updates = await document.stateUpdates()
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("closing".utf8)) }
    try await document.close()
    #expect(try file(path + "/Text.txt") == "closing")
    #expect(await document.state == .closed)
    await #expect(throws: PackageError.self) { try await document.read { $0.name } }
    await #expect(throws: PackageError.self) { try await document.edit { _ in } }
    var seen: [DocumentState] = []
    for await state in updates { seen.append(state) }  // ends because the document closed
    #expect(seen == [.normal, .closed])

    let discarding = try await Document(contentsOf: FilePath(path))
    try await discarding.edit { try $0.setFile(at: "Text.txt", contents: Data("dropped".utf8)) }
    try await discarding.close(saving: false)
    #expect(try file(path + "/Text.txt") == "closing")
  }

  @Test func createMakesANewPackage() async throws {
    let temp = try TemporaryDirectory()
    let path = temp.appending("New.mydoc")
    let document = try await Document.create(at: FilePath(path))
    #expect(await !document.hasUnsavedChanges)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("new".utf8)) }
    try await document.save()
    #expect(try file(path + "/Text.txt") == "new")
    await #expect(throws: PackageError.self) { try await Document.create(at: FilePath(path)) }
  }

  /// How long saving an edit of the one file at the bottom of `depth` folders takes, in a
  /// document opened on that package; the save is checked by opening the package again.
  private func timeOfADeepOneFileSave(depth: Int) async throws -> Duration {
    let temp = try TemporaryDirectory()
    let path = FilePath(temp.appending("Deep.pkg"))
    let leaf = Array(repeating: "d", count: depth).joined(separator: "/") + "/leaf.txt"
    // Made unwatched: what is measured is the save (the reaction of a watching document to such a save is
    // measured by `DeepSaveReactionTests`).
    let created = try await Document(contentsOf: path, options: [.createNew, .unwatched])
    try await created.edit { try $0.setFile(at: leaf, contents: Data("first\n".utf8)) }
    try await created.save()
    try await created.close()
    let document = try await Document(contentsOf: path)
    try await document.edit { try $0.setFile(at: leaf, contents: Data("edited\n".utf8)) }
    let time = try await ContinuousClock().measure { try await document.save() }
    try await document.close()
    let reopened = try await Document(contentsOf: path, options: .unwatched)
    #expect(try await reopened.read { String(decoding: try $0.node(at: leaf).contents(), as: UTF8.self) } == "edited\n")
    try await reopened.close()
    return time
  }

  @Test func savingOneFileAThousandFoldersDeepCostsWhatItsDepthDoes() async throws {
    let shallow = try await timeOfADeepOneFileSave(depth: 100)
    let deep = try await timeOfADeepOneFileSave(depth: 1_000)
    // Ten times the depth: about ten times the work (measured: 0.08 s and 0.8 s), bounded
    // generously for a loaded machine; it was cubic (0.9 s and 14 minutes), then quadratic (×60).
    #expect(deep < shallow * 25, "100 deep: \(shallow), 1,000 deep: \(deep)")
  }

  @Test func autosaveIsOffByDefault() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let clock = TestClock()
    let document = try await Document(contentsOf: FilePath(path), clock: clock)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("unsaved".utf8)) }
    #expect(await document.autosaveTask == nil)  // no timer set
    clock.advance(by: .seconds(3600))
    #expect(clock.sleeperCount == 0)
    #expect(await document.hasUnsavedChanges)
    #expect(try file(path + "/Text.txt") != "unsaved")
  }

  @Test func autosaveSavesAfterTheDelayButNeverInsideAnOpenGroup() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let clock = TestClock()
    let document = try await Document(contentsOf: FilePath(path), clock: clock)
    await document.setAutosaveDelay(.milliseconds(20))
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("auto".utf8)) }
    await clock.waitForSleeper()
    clock.advance(by: .milliseconds(19))
    #expect(await document.hasUnsavedChanges)  // not before the delay
    await runAutosave(document, clock, after: .milliseconds(1))
    #expect(await !document.hasUnsavedChanges)
    #expect(try file(path + "/Text.txt") == "auto")

    await document.withUndoStack { $0.beginGrouping() }
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("in a group".utf8)) }
    if await document.autosaveTask != nil { await runAutosave(document, clock, after: .milliseconds(300)) }
    #expect(try file(path + "/Text.txt") == "auto")  // not saved while the group is open
    await document.withUndoStack { $0.endGrouping() }
    await runAutosave(document, clock, after: .milliseconds(20))
    #expect(try file(path + "/Text.txt") == "in a group")
    #expect(await !document.hasUnsavedChanges)
  }

  /// Another program changes the package between an edit and its autosave: the autosave merges, as the
  /// monitor's reaction would (it never leaves the document in conflict with no conflict version, its edit unsaved).
  @Test(arguments: ["another file", "the same file"])
  func anAutosaveThatMeetsAnotherProgramsChangeMergesWithIt(theirs: String) async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let clock = TestClock()
    // Unwatched: the autosave meets the change first, every time (a monitor's reaction could come first).
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched, clock: clock)
    await document.setAutosaveDelay(.milliseconds(100))
    _ = try await document.read { try ($0.sortedChildren().count, $0.node(at: "Text.txt").contents()) }  // shown
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("mine\n".utf8)) }
    let changed = theirs == "another file" ? "Other.txt" : "Text.txt"
    try Shell.run("sh", ["-c", "echo theirs > \"$1\"", "sh", path + "/" + changed])
    await runAutosave(document, clock, after: .milliseconds(100))
    if changed == "Other.txt" {
      #expect(await document.state == .normal)
      #expect(await !document.hasUnsavedChanges)
      #expect(try file(path + "/Text.txt") == "mine\n")
      #expect(try file(path + "/Other.txt") == "theirs\n")
      #expect(await document.lastOutsideChange?.changes == [PackageMonitor.Change(.added, "Other.txt")])
    } else {
      // A real conflict: the document's side is kept as a conflict version, as saveMerging() keeps it.
      #expect(await document.state == .inConflict)
      #expect(try await document.unresolvedConflicts().count == 1)
      #expect(try file(path + "/Text.txt") == "theirs\n")
    }
    try await document.close(saving: false)
  }

  @Test func stateUpdatesFollowAConflictAndItsResolution() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    // Unwatched: this is about what a save (or a check) finds; a watching document reacts to the
    // outside write by itself (OutsideChangeTests).
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    let updates = await document.stateUpdates()
    try await document.read { _ = try $0.node(at: "Index.json").contents() }
    #expect(await document.checkForOutsideChanges().isEmpty)
    try temp.write("Notes.mydoc/Index.json", "{\"changed\": true}")
    #expect(await document.checkForOutsideChanges() == [OutsideEntryChange(path: "Index.json", kind: .modified)])
    #expect(await document.state == .inConflict)
    await #expect(throws: PackageError.self) {
      try await document.edit { try $0.setFile(at: "A.txt", contents: Data()) }
      try await document.save()
    }
    try await document.revert()
    try await document.close()
    var seen: [DocumentState] = []
    for await state in updates { seen.append(state) }
    #expect(seen == [.normal, .inConflict, .normal, .closed])
  }
}
