import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Document change stream")
struct DocumentUpdatesTests {
  @Test func updatesFollowEditsUndoRedoSaveRevertAndClose() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let document = try await Document(contentsOf: FilePath(path))
    let updates = await document.updates()
    try await document.edit { try $0.renameNode(at: "Index.json", to: "Index2.json") }
    try await document.undo()
    try await document.redo()
    try await document.save()
    try await document.edit { try $0.removeNode(at: "Images") }
    try await document.revert()
    try await document.close()
    var seen: [DocumentUpdate] = []
    for await update in updates { seen.append(update) }  // ends because the document closed
    func update(
      _ state: DocumentState = .normal, undo: String? = nil, redo: String? = nil, unsaved: Bool
    ) -> DocumentUpdate {
      DocumentUpdate(
        state: state, canUndo: undo != nil, canRedo: redo != nil,
        undoMenuItemTitle: undo.map { "Undo \($0)" } ?? "Undo",
        redoMenuItemTitle: redo.map { "Redo \($0)" } ?? "Redo", hasUnsavedChanges: unsaved)
    }
    #expect(
      seen == [
        update(unsaved: false),  // opened
        update(undo: "Rename", unsaved: true),  // edit: the menu reads "Undo Rename" at once
        update(redo: "Rename", unsaved: false),  // undo
        update(undo: "Rename", unsaved: true),  // redo
        update(undo: "Rename", unsaved: false),  // save
        update(undo: "Delete", unsaved: true),  // edit
        update(unsaved: false),  // revert
        update(.closed, unsaved: false),  // close
      ])
  }

  @Test func aConflictFoundIsAnUpdate() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    // Unwatched: this is about what a save (or a check) finds; a watching document reacts to the
    // outside write by itself (OutsideChangeTests).
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.read { _ = try $0.node(at: "Index.json").contents() }
    let updates = await document.updates()
    try temp.write("Notes.mydoc/Index.json", "{\"changed\": true}")
    _ = await document.checkForOutsideChanges()
    try await document.close(saving: false)
    var states: [DocumentState] = []
    for await update in updates { states.append(update.state) }
    #expect(states == [.normal, .inConflict, [.inConflict, .closed]])
  }
}
