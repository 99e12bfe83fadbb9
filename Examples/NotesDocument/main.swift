import DocumentPackage
import SystemPackage

// Example 1: a notes document, as an iOS document app would write it.
//
// A `.mydoc` package holds the note's text and its images:
//
//     Trip.mydoc/
//       Text.txt          the note
//       Images/tram.png   pictures added to it
//
// The example creates one, types into it, adds a picture, undoes and redoes, saves, closes,
// reopens and checks that what it reads back is what it wrote. Run it with a folder to work in:
//
//     swift run NotesDocument /tmp/notes-demo
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The app's document type: composes a `Document` (actors cannot be subclassed) and speaks in
/// the app's terms — text and images — rather than files.
struct NotesDocument {
  let document: Document

  /// Creates a new, empty note at `path`.
  static func create(at path: FilePath) async throws -> NotesDocument {
    let notes = NotesDocument(document: try await Document.create(at: path))
    try await notes.document.edit(registeringUndo: false) { root in
      _ = try root.setFile(at: "Text.txt", contents: Data())
    }
    try await notes.document.save()
    return notes
  }

  /// Opens the note at `path`. Nothing but the package's root is read until asked for.
  static func open(at path: FilePath) async throws -> NotesDocument {
    NotesDocument(document: try await Document(contentsOf: path))
  }

  /// The note's text.
  func text() async throws -> String {
    try await document.read { root in String(decoding: try root.node(at: "Text.txt").contents(), as: UTF8.self) }
  }

  /// Replaces the note's text. Called on every keystroke: consecutive calls coalesce into one undo step.
  func setText(_ text: String) async throws {
    try await document.edit { root in try root.setContents(Data(text.utf8), at: "Text.txt") }
  }

  /// Adds a picture under `Images/`, as one undo step named "Add Image".
  func addImage(named name: String, png: Data) async throws {
    // A named edit is one step of its own: the keystrokes before and after it do not merge into it.
    try await document.edit(named: "Add Image") { root in
      _ = try root.setFile(at: "Images/\(name)", contents: png)
    }
  }

  /// The names of the note's pictures, sorted.
  func imageNames() async throws -> [String] {
    try await document.read { root in
      guard let images = try root.nodeIfPresent(at: "Images") else { return [] }
      return try images.sortedChildren().map(\.name)
    }
  }
}

/// A 1×1 PNG, standing in for a photo.
let tinyPNG = Data([
  0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
  0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
  0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
  0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
])

/// Stops the example with a message if `condition` is false.
func check(_ condition: Bool, _ what: String) throws {
  struct Failed: Error, CustomStringConvertible { let description: String }
  guard condition else { throw Failed(description: "check failed: \(what)") }
  print("ok: \(what)")
}

@main
struct NotesDocumentExample {
  static func main() async {
    let arguments = CommandLine.arguments
    guard arguments.count == 2 else {
      print("usage: NotesDocument FOLDER   (creates FOLDER/Trip.mydoc)")
      exit(2)
    }
    do {
      try await run(in: FilePath(arguments[1]))
    } catch {
      print("NotesDocument: error: \(error)")
      exit(1)
    }
  }

  static func run(in folder: FilePath) async throws {
    let path = folder.appending("Trip.mydoc")

    // 1. Create a note and type into it. Each keystroke is an edit; together they are one undo step.
    let notes = try await NotesDocument.create(at: path)
    for count in 1...12 { try await notes.setText(String("Tram to Graz".prefix(count))) }
    try check(await notes.document.undoMenuItemTitle == "Undo Typing", "typing is one undo step, \"Undo Typing\"")

    // 2. Add a picture, undo it, redo it.
    try await notes.addImage(named: "tram.png", png: tinyPNG)
    try check(await notes.document.undoMenuItemTitle == "Undo Add Image", "the menu says \"Undo Add Image\"")
    try await notes.document.undo()
    try check(try await notes.imageNames().isEmpty, "undo removed the picture")
    try await notes.document.redo()
    try check(try await notes.imageNames() == ["tram.png"], "redo put it back")

    // 3. Undo the typing and redo it: the document is clean only at the saved state.
    try await notes.document.undo()
    try await notes.document.undo()
    let emptyText = try await notes.text()
    let dirtyAtSave = await notes.document.hasUnsavedChanges
    try check(emptyText == "" && !dirtyAtSave, "undoing everything returns to the saved, empty note (clean)")
    try await notes.document.redo()
    try await notes.document.redo()
    try check(await notes.document.hasUnsavedChanges, "redoing makes it dirty again")

    // 4. Save (atomic and incremental), close, reopen, read back.
    try await notes.document.save()
    try check(!(await notes.document.hasUnsavedChanges), "saved: clean")
    try await notes.document.close()
    try check(await notes.document.state == .closed, "closed")

    let reopened = try await NotesDocument.open(at: path)
    try check(try await reopened.text() == "Tram to Graz", "reopened: the text is there")
    try check(try await reopened.imageNames() == ["tram.png"], "reopened: the picture is there")
    let png = try await reopened.document.read { try $0.node(at: "Images/tram.png").contents() }
    try check(png == tinyPNG, "reopened: the picture's bytes are intact")

    // 5. Undo works across a save: edit, save, undo, save again.
    try await reopened.setText("Tram to Graz, then the train")
    try await reopened.document.save()
    try await reopened.document.undo()
    try check(await reopened.document.hasUnsavedChanges, "undo past the save: dirty")
    try await reopened.document.save()
    try await reopened.document.close()
    let third = try await NotesDocument.open(at: path)
    try check(try await third.text() == "Tram to Graz", "saved after undo: the earlier text is on disk")
    try await third.document.close(saving: false)
    print("done: \(path)")
  }
}
