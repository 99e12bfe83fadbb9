import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Edits from outside the main actor (edit closures are fixed for `@MainActor` callers elsewhere).
private func type(_ text: String, into document: Document) async throws {
  try await document.edit { try $0.setFile(at: "Text.txt", contents: Data(text.utf8)) }
}

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

@Suite("Document from the main actor")
struct DocumentMainActorTests {
  @MainActor @Test func aMainActorWindowFollowsSavesMergesAndRestores() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let window = Window(document: try await Document(contentsOf: FilePath(path)))
    let updates = await window.document.updates()
    async let followed: Void = window.follow(updates, until: 3)
    try await type("one", into: window.document)
    try await window.document.save()
    await followed  // opened, edited, saved
    #expect(window.title == "Notes")
    #expect(window.undoTitle == "Undo Edit")
    #expect(try await window.document.saveMerging() == .saved)
    let first = try await window.document.versions().first!.id
    try await window.document.restoreVersion(first)
    try await window.document.resolveConflicts()
    try await window.document.close()
    #expect(await window.document.state == .closed)
  }
}
