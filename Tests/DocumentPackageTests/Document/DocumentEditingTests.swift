import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

private func file(_ path: String) throws -> String {
  String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
}

/// No change to a document's tree is lost at close: a change is either refused (inside `read`) or
/// counted as unsaved, however it was made.
@Suite("Document: every change is saved or refused")
struct DocumentEditingTests {
  @Test func aChangeInsideReadIsRefusedAndNamesThePath() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let original = try file(path + "/Text.txt")
    let document = try await Document(contentsOf: FilePath(path))
    await #expect {
      try await document.read { root in _ = try root.setFile(at: "Text.txt", contents: Data("lost".utf8)) }
    } throws: { error in
      let error = error as? PackageError
      return error?.code == .invalidArgument && error?.path == "Text.txt"
    }
    // Swallowing the error inside `read`, or using a setter that cannot throw, does not help.
    await #expect(throws: PackageError.self) {
      try await document.read { root in
        try? root.node(at: "Text.txt").setContents(Data("lost".utf8))
        try root.node(at: "Index.json").permissions = FilePermissions(rawValue: 0o600)
      }
    }
    #expect(await !document.hasUnsavedChanges)
    #expect(try await document.read { root in try root.node(at: "Text.txt").contents() } == Data(original.utf8))
    #expect(try await document.read { root in try root.node(at: "Index.json").permissions.rawValue } != 0o600)
    try await document.close()
    #expect(try file(path + "/Text.txt") == original)
  }

  private struct GaveUp: Error {}

  @Test func aNamedEditWhoseBodyThrowsLeavesNothingBehind() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.edit(named: "Retitle") { try $0.setFile(at: "Text.txt", contents: Data("kept".utf8)) }
    await #expect(throws: GaveUp.self) {
      try await document.edit(named: "Add Page") { root in
        try root.setFile(at: "Pages/p1.txt", contents: Data("1".utf8))
        try root.setFile(at: "Text.txt", contents: Data("dropped".utf8))
        throw GaveUp()
      }
    }
    #expect(try await document.read { try $0.child(named: "Pages") == nil })
    #expect(
      try await document.read { String(decoding: try $0.node(at: "Text.txt").contents(), as: UTF8.self) } == "kept")
    #expect(await document.undoMenuItemTitle == "Undo Retitle")
    #expect(await !document.canRedo)
    try await document.undo()
    #expect(await !document.hasUnsavedChanges)
  }

  @Test func quickEditsOfOneFileAreOneUndoStepAndAnUnnamedEditKeepsWhatItDidBeforeThrowing() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let original = try file(path + "/Text.txt")
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    await document.withUndoStack { $0.coalescingInterval = .seconds(3600) }  // "quick", however loaded the machine
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("a".utf8)) }
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("ab".utf8)) }
    await #expect(throws: GaveUp.self) {
      try await document.edit { root in
        try root.setFile(at: "Text.txt", contents: Data("abc".utf8))
        throw GaveUp()
      }
    }
    func text() async throws -> String {
      try await document.read { String(decoding: try $0.node(at: "Text.txt").contents(), as: UTF8.self) }
    }
    #expect(try await text() == "abc")
    try await document.undo()  // one step: all three
    #expect(try await text() == original)
    #expect(await !document.canUndo)
  }

  /// One unnamed `edit` is one undo step, whatever it changes: each change was its own step, so one undo took
  /// back only the last of an edit's changes and left the document in a state no edit made (outsider attack on
  /// issue 36: 8 of 8). An edit whose one change is typing in a file still merges into the last step.
  @Test func anUnnamedEditOfSeveralChangesIsOneUndoStep() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    await document.withUndoStack { $0.coalescingInterval = .seconds(3600) }  // "quick", however loaded the machine
    func contents(_ entry: String) async throws -> String? {
      try await document.read { root in
        try root.nodeIfPresent(at: entry).map { String(decoding: try $0.contents(), as: UTF8.self) }
      }
    }
    let text = try await contents("Text.txt")
    try await document.edit { root in
      try root.setContents(Data("two".utf8), at: "Text.txt")
      _ = try root.setFile(at: "Pages/new.txt", contents: Data("new".utf8))
      try root.renameNode(at: "Images/tram.png", to: "Tram.png")
    }
    #expect(await document.withUndoStack { $0.undoCount } == 1)
    let title = await document.undoMenuItemTitle
    #expect(title == "Undo Typing")  // its first change's name
    // Typing after it, in the file the edit changed: its own step (the edit changed more than that file).
    try await document.edit { try $0.setContents(Data("three".utf8), at: "Text.txt") }
    try await document.edit { try $0.setContents(Data("four".utf8), at: "Text.txt") }
    #expect(await document.withUndoStack { $0.undoCount } == 2)
    try await document.undo()
    #expect(try await contents("Text.txt") == "two")
    try await document.undo()
    #expect(try await contents("Text.txt") == text)
    #expect(try await contents("Pages/new.txt") == nil)
    #expect(try await contents("Images/tram.png") != nil)
    #expect(await !document.canUndo)
  }

  @Test func aRefusedChangeLeavesNothingBehindForLaterReads() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let n = try await Document(contentsOf: FilePath(path))
    try await n.edit { try $0.renameNode(at: "Images/tram.png", to: "Tram.png") }
    try await n.undo()
    try await n.edit(named: "Add Page") { try $0.setFile(at: "Pages/p1.txt", contents: Data("1".utf8)) }
    // The body's own `try` lets the refusal out of it: `read` throws, as documented.
    let refused = try? await n.read { r in
      _ = try r.setFile(at: "X.txt", contents: Data())
      return 0
    }
    #expect(refused == nil)
    try await n.undo()
    try await n.edit {
      _ = try $0.node(at: "Images").addRegularFile(contents: Data("a".utf8), preferredName: "tram.png")
    }
    // Later reads are reads: the earlier refusal is not thrown again.
    let names = try await n.read { try $0.node(at: "Images").sortedChildren().map(\.name) }
    #expect(names.count == 2)
    #expect(try await n.read { try $0.nodeIfPresent(at: "X.txt") == nil })
    #expect(try await n.read { try $0.nodeIfPresent(at: "Pages") == nil })
    try await n.close()
    #expect(!FileManager.default.fileExists(atPath: path + "/X.txt"))
  }

  @Test func aChangeMadeOnANodeOfTheTreeIsUndoableAndSavedByClose() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit { root in
      let text = try root.node(at: "Text.txt")
      try text.setContents(Data("direct".utf8))
    }
    #expect(await document.hasUnsavedChanges)
    #expect(await document.undoMenuItemTitle == "Undo Typing")
    try await document.close()
    #expect(try file(path + "/Text.txt") == "direct")
  }

  @Test func aChangeWithUndoRegistrationDisabledIsSavedByClose() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit(registeringUndo: false) { root in
      _ = try root.setFile(at: "Text.txt", contents: Data("not undoable".utf8))
    }
    #expect(await !document.canUndo)
    #expect(await document.hasUnsavedChanges)
    try await document.close()
    #expect(try file(path + "/Text.txt") == "not undoable")
  }

  @Test func aChangeTheUndoStackNeverSawIsSavedByClose() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    // A primitive that bypasses the recorder: only the tree's own change tracking knows.
    try await document.edit { root in try root.node(at: "Text.txt").replaceContents(.data(Data("model only".utf8))) }
    #expect(await !document.canUndo)
    #expect(await document.hasUnsavedChanges)
    try await document.close()
    #expect(try file(path + "/Text.txt") == "model only")
  }

  @Test func aNamedEditIsOneStepThatTypingDoesNotMergeInto() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    await document.withUndoStack { $0.coalescingInterval = .seconds(60) }
    try await document.edit { try $0.setContents(Data("a".utf8), at: "Text.txt") }
    try await document.edit(named: "Add Page") { root in
      _ = try root.setFile(at: "Pages/2/text.txt", contents: Data("two".utf8))
      try root.setContents(Data("ab".utf8), at: "Text.txt")
    }
    try await document.edit { try $0.setContents(Data("abc".utf8), at: "Text.txt") }
    #expect(await document.withUndoStack { $0.undoCount } == 3)
    try await document.undo()
    #expect(await document.undoMenuItemTitle == "Undo Add Page")
    try await document.undo()
    #expect(try await document.read { try $0.nodeIfPresent(at: "Pages") == nil })
    #expect(try await document.read { try $0.node(at: "Text.txt").contents() } == Data("a".utf8))
  }
}
