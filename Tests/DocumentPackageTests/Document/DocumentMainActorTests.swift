import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A window of an app: keeps its title and undo menu current from the document's change stream,
/// saves, merges and resolves conflicts — all from the main actor.
@MainActor
private final class Window {
  let document: Document
  var title = ""
  var undoTitle = ""
  var seen = 0

  init(document: Document) { self.document = document }

  func follow(_ updates: AsyncStream<DocumentUpdate>, until count: Int) async {
    for await update in updates {
      title = (update.hasUnsavedChanges ? "• " : "") + "Notes"
      undoTitle = update.undoMenuItemTitle
      seen += 1
      if seen == count { return }
    }
  }
}

/// An app's view model, isolated to the main actor as in every GUI app, driving a `Document`.
///
/// This file is compiled in Swift 6 mode with the test target: it checks that `edit`, `read` and
/// `withUndoStack` can be called from `@MainActor` code with closures that capture the caller's
/// values (their `body` parameters are `sending`).
@MainActor
private final class NoteViewModel {
  let document: Document
  var undoTitle = ""

  init(document: Document) { self.document = document }

  func type(_ text: String) async throws {
    try await document.edit { root in try root.setContents(Data(text.utf8), at: "Text.txt") }
    undoTitle = await document.undoMenuItemTitle
  }

  func renameImage(to name: String) async throws {
    try await document.edit(named: "Rename Image") { root in try root.renameNode(at: "Images/tram.png", to: name) }
    undoTitle = await document.undoMenuItemTitle
  }

  func text() async throws -> String {
    let path = "Text.txt"
    return try await document.read { root in String(decoding: try root.node(at: path).contents(), as: UTF8.self) }
  }

  func imageNames() async throws -> [String] {
    try await document.read { root in try root.node(at: "Images").sortedChildren().map(\.name) }
  }

  func keepUndoSteps(_ count: Int) async {
    await document.withUndoStack { $0.levelsOfUndo = count }
  }

  func undo() async throws {
    try await document.undo()
    undoTitle = await document.undoMenuItemTitle
  }

  func save() async throws { try await document.save() }
}

@Suite("Document from the main actor")
struct DocumentMainActorTests {
  @MainActor @Test func aMainActorWindowFollowsSavesMergesAndRestores() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let window = Window(document: try await Document(contentsOf: FilePath(path)))
    let updates = await window.document.updates()
    async let followed: Void = window.follow(updates, until: 3)
    let text = "one"
    try await window.document.edit { try $0.setFile(at: "Text.txt", contents: Data(text.utf8)) }
    try await window.document.save()
    await followed  // opened, edited, saved
    #expect(window.title == "Notes")
    #expect(window.undoTitle == "Undo Edit")
    #expect(try await window.document.saveMerging() == .saved)
    let first = try await window.document.versions().first!.id
    #expect(try await window.document.withVersionStore { try $0.versions().count } >= 1)
    try await window.document.restoreVersion(first)
    try await window.document.resolveConflicts()
    try await window.document.close()
    #expect(await window.document.state == .closed)
  }

  @Test @MainActor func aMainActorViewModelEditsReadsUndoesAndSaves() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let model = NoteViewModel(document: try await Document(contentsOf: FilePath(path)))
    await model.keepUndoSteps(10)
    try await model.type("Hello")
    #expect(model.undoTitle == "Undo Typing")
    try await model.renameImage(to: "Tram.png")
    #expect(model.undoTitle == "Undo Rename Image")
    #expect(try await model.imageNames() == ["Tram.png"])
    try await model.undo()
    #expect(try await model.imageNames() == ["tram.png"])
    #expect(try await model.text() == "Hello")
    try await model.save()
    let saved = try Data(contentsOf: URL(fileURLWithPath: path + "/Text.txt"))
    #expect(String(decoding: saved, as: UTF8.self) == "Hello")
    try await model.document.close()
  }
}
