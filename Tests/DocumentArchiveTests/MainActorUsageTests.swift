import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

// The README's `@MainActor` example, verbatim: an app's view model on the main actor awaiting a
// `Document` and an async pack. Compiled here so the README cannot drift from the API.

@MainActor
final class NotesViewModel {
  private(set) var text = ""
  private(set) var undoTitle = "Undo"
  private(set) var edited = false
  private var document: Document?

  func open(_ path: FilePath) async throws {
    let document = try await Document(contentsOf: path)
    self.document = document
    text = try await document.read { root in String(decoding: try root.node(at: "Text.txt").contents(), as: UTF8.self) }
    Task { [weak self] in
      for await update in await document.updates() {  // menus and title bar follow the document
        self?.undoTitle = update.undoMenuItemTitle
        self?.edited = update.hasUnsavedChanges
      }
    }
  }

  func type(_ newText: String) async throws {
    text = newText
    try await document?.edit(named: "Typing") { root in try root.setContents(Data(newText.utf8), at: "Text.txt") }
  }

  func save() async throws { try await document?.save() }

  /// Shares the saved package as a zip; cancelling the task that runs this stops it and leaves no file.
  func share(to zip: FilePath, progress: @escaping @Sendable (Double) -> Void) async throws {
    guard let path = await document?.path else { return }
    try await ArchivePacker.pack(contentsOf: path, to: zip, options: PackOptions(format: .zip)) {
      progress($0.fractionDone ?? 0)
    }
  }
}

@Suite("the README's @MainActor usage example")
struct MainActorUsageTests {
  @Test("a main-actor view model opens, edits, saves and shares a document")
  @MainActor
  func viewModel() async throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let model = NotesViewModel()
    try await model.open(FilePath(package))
    #expect(model.text.isEmpty == false)
    try await model.type("Hello")
    // The updates arrive on the main actor shortly after: poll there (eventually's closure is not main-actor).
    let deadline = ContinuousClock.now + .seconds(10)
    while !(model.undoTitle == "Undo Typing" && model.edited), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(model.undoTitle == "Undo Typing" && model.edited)
    try await model.save()
    #expect(try String(contentsOfFile: package + "/Text.txt", encoding: .utf8) == "Hello")
    try await model.share(to: FilePath(temp.appending("Notes.zip"))) { _ in }
    #expect(FileManager.default.fileExists(atPath: temp.appending("Notes.zip")))
  }
}
