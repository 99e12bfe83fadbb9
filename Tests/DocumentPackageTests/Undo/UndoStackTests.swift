import Foundation
import Testing

@testable import DocumentPackage

/// A tiny model that registers its own undo, the way an app's model would.
private final class Note {
  let undo: UndoStack
  var title: String
  var tags: [String] = []
  init(_ undo: UndoStack, title: String = "") {
    self.undo = undo
    self.title = title
  }

  func setTitle(_ new: String, key: AnyHashable? = nil) {
    let old = title
    title = new
    undo.registerUndo(withTarget: self, coalescingKey: key) { $0.setTitle(old) }
  }

  func addTag(_ tag: String) {
    tags.append(tag)
    undo.registerUndo(withTarget: self) { $0.removeTag(tag) }
  }

  func removeTag(_ tag: String) {
    tags.removeAll { $0 == tag }
    undo.registerUndo(withTarget: self) { $0.addTag(tag) }
  }
}

private struct Failure: Error {}

@Suite("Undo stack")
struct UndoStackTests {
  @Test func undoAndRedoOneAction() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    #expect(!undo.canUndo && !undo.canRedo)
    note.setTitle("B")
    #expect(undo.canUndo && !undo.canRedo)
    try undo.undo()
    #expect(note.title == "A")
    #expect(!undo.canUndo && undo.canRedo)
    try undo.redo()
    #expect(note.title == "B")
    #expect(undo.canUndo && !undo.canRedo)
  }

  @Test func actionsRegisteredWhileUndoingBecomeRedoAndViceVersa() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    var seen: [String] = []
    undo.registerUndo(withTarget: note) { _ in
      seen.append(undo.isUndoing ? "undoing" : undo.isRedoing ? "redoing" : "neither")
    }
    try undo.undo()
    #expect(seen == ["undoing"])
    #expect(!undo.canRedo)  // the action registered nothing, so there is nothing to redo
    note.setTitle("B")
    note.setTitle("C")
    try undo.undo()
    try undo.undo()
    #expect(note.title == "A" && undo.redoCount == 2)
    try undo.redo()
    #expect(note.title == "B" && undo.undoCount == 1 && undo.redoCount == 1)
    try undo.redo()
    #expect(note.title == "C" && !undo.isUndoing && !undo.isRedoing)
  }

  @Test func aNewEditClearsRedo() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    note.setTitle("B")
    try undo.undo()
    #expect(undo.canRedo)
    note.setTitle("C")
    #expect(!undo.canRedo)
    try undo.undo()
    #expect(note.title == "A")
  }

  @Test func nestedGroupsAreOneStep() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    undo.beginGrouping()
    note.setTitle("B")
    undo.beginGrouping()
    #expect(undo.groupingLevel == 2)
    note.addTag("x")
    note.addTag("y")
    undo.endGrouping()
    note.setTitle("C")
    undo.endGrouping()
    #expect(undo.groupingLevel == 0 && undo.undoCount == 1)
    try undo.undo()
    #expect(note.title == "A" && note.tags.isEmpty)
    try undo.redo()
    #expect(note.title == "C" && note.tags == ["x", "y"])
  }

  @Test func groupClosureClosesEvenWhenItThrows() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    #expect(throws: Failure.self) {
      try undo.group(named: "Retitle") {
        note.setTitle("B")
        throw Failure()
      }
    }
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoMenuItemTitle == "Undo Retitle")
    try undo.undo()
    #expect(note.title == "A")
  }

  @Test func emptyGroupAddsNoStep() {
    let undo = UndoStack()
    undo.group {}
    #expect(!undo.canUndo && !undo.hasUnsavedChanges)
  }

  @Test func levelsOfUndoDropsTheOldestSteps() throws {
    let undo = UndoStack(levelsOfUndo: 3)
    let note = Note(undo, title: "0")
    for index in 1...5 { note.setTitle("\(index)") }
    #expect(undo.undoCount == 3)
    while undo.canUndo { try undo.undo() }
    #expect(note.title == "2")  // steps 1 and 2 were dropped
    while undo.canRedo { try undo.redo() }
    #expect(note.title == "5")
    undo.levelsOfUndo = 1
    #expect(undo.undoCount == 1)
  }

  @Test func actionNamesAndMenuTitles() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    #expect(undo.undoMenuItemTitle == "Undo" && undo.redoMenuItemTitle == "Redo")
    note.setTitle("B")
    #expect(undo.undoMenuItemTitle == "Undo")
    undo.setActionName("Rename")
    #expect(undo.undoActionName == "Rename" && undo.undoMenuItemTitle == "Undo Rename")
    undo.group(named: "Tag") { note.addTag("x") }
    #expect(undo.undoMenuItemTitle == "Undo Tag")
    try undo.undo()
    #expect(undo.redoMenuItemTitle == "Redo Tag" && undo.undoMenuItemTitle == "Undo Rename")
    try undo.redo()
    #expect(undo.undoMenuItemTitle == "Undo Tag")
    #expect(undo.undoMenuTitle(forUndoActionName: "Move") == "Undo Move")
    #expect(undo.redoMenuTitle(forUndoActionName: "") == "Redo")
  }

  @Test func disabledRegistrationRecordsNothingAndNests() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    undo.disableUndoRegistration()
    undo.disableUndoRegistration()
    note.setTitle("B")
    undo.enableUndoRegistration()
    #expect(!undo.isUndoRegistrationEnabled)
    note.setTitle("C")
    undo.enableUndoRegistration()
    #expect(undo.isUndoRegistrationEnabled && !undo.canUndo)
    undo.withoutUndoRegistration { note.setTitle("D") }
    #expect(!undo.canUndo)
    note.setTitle("E")
    try undo.undo()
    #expect(note.title == "D")
  }

  @Test func removeAllActions() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    note.setTitle("B")
    note.setTitle("C")
    try undo.undo()
    undo.removeAllActions()
    #expect(!undo.canUndo && !undo.canRedo && note.title == "B")
    #expect(undo.hasUnsavedChanges)  // the document still differs from what was saved
  }

  @Test func removeAllActionsWithTarget() throws {
    let undo = UndoStack()
    let first = Note(undo, title: "A"), second = Note(undo, title: "X")
    first.setTitle("B")
    second.setTitle("Y")
    undo.group {
      first.setTitle("C")
      second.setTitle("Z")
    }
    undo.removeAllActions(withTarget: second)
    #expect(undo.undoCount == 2)
    try undo.undo()
    #expect(first.title == "B" && second.title == "Z")
  }

  @Test func targetsAreHeldWeakly() throws {
    let undo = UndoStack()
    weak var gone: Note?
    do {
      let note = Note(undo, title: "A")
      note.setTitle("B")
      gone = note
    }
    #expect(gone == nil)
    try undo.undo()  // does nothing, does not crash
    #expect(!undo.canUndo)
  }

  @Test func discardableStepsNeverMakeTheDocumentDirty() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    note.addTag("selection")
    undo.setActionIsDiscardable(true)
    #expect(undo.undoActionIsDiscardable && !undo.hasUnsavedChanges)
    note.setTitle("B")
    #expect(undo.hasUnsavedChanges && !undo.undoActionIsDiscardable)
    try undo.undo()
    #expect(!undo.hasUnsavedChanges)
    try undo.undo()
    #expect(!undo.hasUnsavedChanges && undo.redoActionIsDiscardable)
    try undo.redo()
    #expect(!undo.hasUnsavedChanges && note.tags == ["selection"])
    undo.group {
      undo.setActionIsDiscardable(true)
      note.addTag("scroll")
    }
    #expect(undo.undoActionIsDiscardable && !undo.hasUnsavedChanges)
  }

  @Test func coalescingMergesEditsWithTheSameKeyIntoOneStep() throws {
    let undo = UndoStack()
    undo.coalescingInterval = .seconds(60)
    let note = Note(undo, title: "")
    for text in ["H", "He", "Hel", "Hell", "Hello"] { note.setTitle(text, key: "title") }
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(note.title == "")
    try undo.redo()
    #expect(note.title == "Hello")
  }

  @Test func coalescingStopsAtBoundaries() throws {
    let undo = UndoStack()
    undo.coalescingInterval = .seconds(60)
    let note = Note(undo, title: "")
    note.setTitle("a", key: "title")
    note.setTitle("ab", key: "title")
    note.setTitle("x", key: "other")  // another key
    note.setTitle("xy", key: "other")
    undo.endCoalescing()  // an explicit boundary
    note.setTitle("xyz", key: "other")
    note.addTag("t")  // a step without a key
    note.setTitle("xyzw", key: "other")
    #expect(undo.undoCount == 5)
    undo.group { note.setTitle("g") }  // a group without a key is a boundary too
    note.setTitle("gh", key: "other")
    #expect(undo.undoCount == 7)
    try undo.undo()
    note.setTitle("after undo", key: "other")
    note.setTitle("after undo 2", key: "other")
    #expect(undo.undoCount == 7)
  }

  @Test func coalescingNeedsEditsWithinTheInterval() throws {
    let undo = UndoStack()
    undo.coalescingInterval = .zero
    let note = Note(undo, title: "")
    note.setTitle("a", key: "title")
    note.setTitle("ab", key: "title")
    #expect(undo.undoCount == 2)
    undo.coalescingInterval = .seconds(60)
    note.setTitle("abc", key: "title")  // merges into "ab"
    #expect(undo.undoCount == 2)
    undo.coalescingInterval = .milliseconds(20)
    let later = ContinuousClock.now + .milliseconds(50)
    undo.now = { later }  // a pause longer than the interval, without sleeping
    note.setTitle("abcd", key: "title")
    #expect(undo.undoCount == 3)
  }

  @Test func coalescedGroupsMerge() throws {
    let undo = UndoStack()
    undo.coalescingInterval = .seconds(60)
    let note = Note(undo, title: "")
    undo.group(named: "Typing", coalescingKey: "body") { note.setTitle("a") }
    undo.group(named: "Typing", coalescingKey: "body") { note.setTitle("ab") }
    #expect(undo.undoCount == 1 && undo.undoMenuItemTitle == "Undo Typing")
  }

  @Test func savedStateTracksUndoAndRedo() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    #expect(!undo.hasUnsavedChanges)
    note.setTitle("B")
    #expect(undo.hasUnsavedChanges)
    try undo.undo()
    #expect(!undo.hasUnsavedChanges)  // back to the opened state
    try undo.redo()
    undo.markSaved()  // saved with "B"
    #expect(!undo.hasUnsavedChanges)
    note.setTitle("C")
    #expect(undo.hasUnsavedChanges)
    try undo.undo()
    #expect(!undo.hasUnsavedChanges)  // back at the save point
    try undo.undo()
    #expect(undo.hasUnsavedChanges && note.title == "A")  // undone past it
    try undo.redo()
    #expect(!undo.hasUnsavedChanges && note.title == "B")
    try undo.redo()
    #expect(undo.hasUnsavedChanges)  // redone past it
    try undo.undo()
    try undo.undo()
    note.setTitle("D")  // a new branch: the saved state can no longer be reached
    try undo.undo()
    #expect(undo.hasUnsavedChanges && note.title == "A")
    try undo.redo()
    #expect(undo.hasUnsavedChanges)
  }

  @Test func coalescingNeverMergesAcrossASave() throws {
    let undo = UndoStack()
    undo.coalescingInterval = .seconds(60)
    let note = Note(undo, title: "")
    note.setTitle("a", key: "title")
    undo.markSaved()
    note.setTitle("ab", key: "title")
    #expect(undo.undoCount == 2 && undo.hasUnsavedChanges)
    try undo.undo()
    #expect(!undo.hasUnsavedChanges && note.title == "a")
  }

  @Test func aChangeWithoutUndoMakesTheDocumentDirty() {
    let undo = UndoStack()
    undo.noteChange()
    #expect(undo.hasUnsavedChanges)
    undo.markSaved()
    #expect(!undo.hasUnsavedChanges)
  }

  @Test func aFailedUndoChangesNothing() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    var fail = true
    undo.group(named: "Both") {
      undo.registerUndo { if fail { throw Failure() } }
      note.setTitle("B")
    }
    #expect(throws: Failure.self) { try undo.undo() }
    // The title was restored, then put back when the second action failed.
    #expect(note.title == "B" && undo.undoCount == 1 && !undo.canRedo && undo.hasUnsavedChanges)
    fail = false
    try undo.undo()
    #expect(note.title == "A" && !undo.hasUnsavedChanges)
  }

  @Test func onChangeIsCalledForEveryChange() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    var calls = 0
    undo.onChange = { _ in calls += 1 }
    note.setTitle("B")
    try undo.undo()
    try undo.redo()
    undo.markSaved()
    undo.removeAllActions()
    #expect(calls == 5)
  }

  @Test func onChangeSeesTheNameOfTheStepItReports() throws {
    let undo = UndoStack()
    let note = Note(undo, title: "A")
    var titles: [String] = []
    undo.onChange = { titles.append($0.undoMenuItemTitle) }
    note.setTitle("B")
    undo.setActionName("Rename")  // as with UndoManager: registered first, named after
    #expect(titles.last == "Undo Rename")
    undo.setActionName("Rename")  // no change, no call
    #expect(titles == ["Undo", "Undo Rename"])
  }
}
