import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Opens a fresh copy of the Notes.mydoc fixture for editing.
private func openNotes(_ temp: TemporaryDirectory) throws -> PackageEditor {
  let path = try Fixtures.copy("Notes.mydoc", into: temp)
  return PackageEditor(root: try PackageNode(contentsOf: FilePath(path)))
}

/// Every path in the tree with its kind, for comparing trees before and after undo.
private func listing(_ root: PackageNode) throws -> [String] {
  var lines: [String] = []
  try root.walk { node, path, _ in
    lines.append(
      "\(path) \(node.kind) \(String(node.permissions.rawValue, radix: 8)) \(node.kind == .symlink ? node.symbolicLinkDestination : "")"
    )
    return true
  }
  return lines
}

private func text(_ root: PackageNode, _ path: String) throws -> String {
  String(decoding: try root.node(at: path).contents(), as: UTF8.self)
}

@Suite("Undoable package edits")
struct PackageEditorTests {
  /// Makes `edit`, checks it changed the tree, undoes it and checks the tree (and the model's
  /// own change tracking) is back, then redoes it and checks the edit is back.
  private func checkUndoRedo(
    _ editor: PackageEditor, name: String, _ edit: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let before = try listing(editor.root)
    let wasChanged = editor.root.hasUnsavedChanges
    try edit()
    let after = try listing(editor.root)
    #expect(editor.undoStack.undoMenuItemTitle == "Undo \(name)", sourceLocation: sourceLocation)
    #expect(editor.hasUnsavedChanges && editor.root.hasUnsavedChanges, sourceLocation: sourceLocation)
    try editor.undoStack.undo()
    #expect(try listing(editor.root) == before, sourceLocation: sourceLocation)
    #expect(editor.root.hasUnsavedChanges == wasChanged, sourceLocation: sourceLocation)
    #expect(!editor.hasUnsavedChanges, sourceLocation: sourceLocation)
    #expect(editor.undoStack.redoMenuItemTitle == "Redo \(name)", sourceLocation: sourceLocation)
    try editor.undoStack.redo()
    #expect(try listing(editor.root) == after, sourceLocation: sourceLocation)
    #expect(editor.hasUnsavedChanges && editor.root.hasUnsavedChanges, sourceLocation: sourceLocation)
    try editor.undoStack.undo()
  }

  @Test func setFileOnAnExistingFile() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let original = try text(editor.root, "Text.txt")
    try checkUndoRedo(editor, name: "Edit") { try editor.root.setFile(at: "Text.txt", contents: Data("new".utf8)) }
    #expect(try text(editor.root, "Text.txt") == original)
    // Undone back to the file on disk: the node reads from disk again (a save could hard-link it).
    #expect(editor.root.hasUnsavedChanges == false)
    #expect(try editor.root.node(at: "Text.txt").diskLocation != nil)
  }

  @Test func setFileCreatingDirectories() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "Add File") {
      try editor.root.setFile(at: "Pages/p1/text.txt", contents: Data("x".utf8))
    }
    #expect(try editor.root.nodeIfPresent(at: "Pages") == nil)
    try editor.undoStack.redo()
    #expect(try text(editor.root, "Pages/p1/text.txt") == "x")
  }

  @Test func setContents() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "Typing") { try editor.root.setContents(Data("typed".utf8), at: "Text.txt") }
    #expect(throws: PackageError.self) { try editor.root.setContents(Data(), at: "Images") }
  }

  @Test func makeDirectory() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "New Folder") { try editor.root.makeDirectory(at: "A/B/C") }
    let count = editor.undoStack.undoCount
    try editor.root.makeDirectory(at: "Images")  // already there: no step
    #expect(editor.undoStack.undoCount == count)
  }

  @Test func setNodeReplacesAndUndoRestoresTheSameNode() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let old = try editor.root.node(at: "Images/tram.png")
    try checkUndoRedo(editor, name: "Replace") {
      try editor.root.setNode(PackageNode(regularFileWithContents: Data("png".utf8)), at: "Images/tram.png")
    }
    let restored = try editor.root.node(at: "Images/tram.png")
    #expect(restored === old)
    #expect(!restored.isLoaded)  // its bytes were never read
    #expect(restored.diskLocation != nil)
  }

  @Test func removeNodeRestoresTheSameUnreadSubtree() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let images = try editor.root.node(at: "Images")
    try checkUndoRedo(editor, name: "Delete") { try editor.root.removeNode(at: "Images") }
    #expect(try editor.root.node(at: "Images") === images)
    #expect(try images.node(at: "tram.png").isLoaded == false)
    #expect(throws: PackageError.self) { try editor.root.removeNode(at: "Nothing") }
  }

  @Test func moveNode() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "Move") {
      try editor.root.moveNode(at: "Images/tram.png", to: "Media/Photos/tram.png")
    }
    try checkUndoRedo(editor, name: "Move") { try editor.root.moveNode(at: "Text.txt", to: "Body.txt") }
  }

  @Test func aFailedEditChangesNothing() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let before = try listing(editor.root)
    // The destination's directories are created before the clash is found; they are removed again.
    try editor.root.makeDirectory(at: "New/Deep")
    try editor.root.setFile(at: "New/Deep/taken", contents: Data())
    try editor.undoStack.undo()
    try editor.undoStack.undo()
    #expect(throws: PackageError.self) { try editor.root.moveNode(at: "Images", to: "Images/Inside/Images") }
    #expect(try listing(editor.root) == before)
    #expect(!editor.undoStack.canUndo && !editor.hasUnsavedChanges && !editor.root.hasUnsavedChanges)
  }

  @Test func addChildUsesUniqueNames() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let images = try editor.root.node(at: "Images")
    try checkUndoRedo(editor, name: "Add") {
      let name = try images.addRegularFile(contents: Data("x".utf8), preferredName: "tram.png")
      #expect(name == "tram 2.png")
    }
    let folder = try PackageNode(directoryWithChildren: [:])
    folder.preferredName = "Images"
    try checkUndoRedo(editor, name: "Add") {
      let name = try editor.root.addChild(folder)
      #expect(name == "Images 2")
    }
  }

  @Test func removeChild() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let text = try editor.root.node(at: "Text.txt")
    try checkUndoRedo(editor, name: "Delete") { try editor.root.removeChild(text) }
    try checkUndoRedo(editor, name: "Delete") { try editor.root.removeChild(named: "Index.json") }
    #expect(throws: PackageError.self) { try editor.root.node(at: "Images").removeChild(text) }
  }

  @Test func replaceChild() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "Replace") {
      let old = try editor.root.replaceChild(
        named: "Index.json", with: PackageNode(regularFileWithContents: Data("{}".utf8)))
      #expect(old != nil)
    }
    try checkUndoRedo(editor, name: "Replace") {
      let old = try editor.root.replaceChild(
        named: "New.json", with: PackageNode(regularFileWithContents: Data()))
      #expect(old == nil)
    }
  }

  @Test func renameChild() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "Rename") {
      try editor.root.renameChild(named: "Text.txt", to: "Body.txt")
    }
    try checkUndoRedo(editor, name: "Rename") { try editor.root.renameNode(at: "Images/tram.png", to: "bus.png") }
    #expect(throws: PackageError.self) { try editor.root.renameChild(named: "Text.txt", to: "Index.json") }
    #expect(throws: PackageError.self) { try editor.root.renameChild(named: "Text.txt", to: "a/b") }
    #expect(!editor.undoStack.canUndo)
  }

  @Test func attributes() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try checkUndoRedo(editor, name: "Change Permissions") {
      try editor.root.setPermissions(FilePermissions(rawValue: 0o600), at: "Text.txt")
    }
    let node = try editor.root.node(at: "Text.txt")
    let time = node.modificationTime
    try checkUndoRedo(editor, name: "Change Date") {
      try editor.root.setModificationTime(FileTime(seconds: 1), at: "Text.txt")
    }
    #expect(node.modificationTime == time)
    try node.setPermissions(node.permissions)  // the same: no step
    #expect(!editor.undoStack.canUndo)
  }

  @Test func symbolicLinkDestination() throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    try temp.symlink("Notes.mydoc/Link", to: "Text.txt")
    let editor = PackageEditor(root: try PackageNode(contentsOf: FilePath(path)))
    try checkUndoRedo(editor, name: "Change Link") {
      try editor.root.setSymbolicLinkDestination("Index.json", at: "Link")
    }
    #expect(try editor.root.node(at: "Link").symbolicLinkDestination == "Text.txt")
    #expect(throws: PackageError.self) { try editor.root.setSymbolicLinkDestination("x", at: "Text.txt") }
  }

  @Test func typingCoalescesAndRedoRestoresTheLastText() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    editor.undoStack.coalescingInterval = .seconds(60)
    let original = try text(editor.root, "Text.txt")
    for count in 1...20 { try editor.root.setContents(Data(String(repeating: "a", count: count).utf8), at: "Text.txt") }
    try editor.root.setFile(at: "Text.txt", contents: Data("final".utf8))
    #expect(editor.undoStack.undoCount == 1)
    try editor.undoStack.undo()
    #expect(try text(editor.root, "Text.txt") == original && !editor.root.hasUnsavedChanges)
    try editor.undoStack.redo()
    #expect(try text(editor.root, "Text.txt") == "final")
    // Typing into a new file: creating it and the keystrokes that follow are one step.
    try editor.root.setFile(at: "Notes/new.txt", contents: Data("a".utf8))
    try editor.root.setFile(at: "Notes/new.txt", contents: Data("ab".utf8))
    try editor.root.setContents(Data("abc".utf8), at: "Notes/new.txt")
    #expect(editor.undoStack.undoCount == 2)
    try editor.undoStack.undo()
    #expect(try editor.root.nodeIfPresent(at: "Notes") == nil)
    try editor.undoStack.redo()
    #expect(try text(editor.root, "Notes/new.txt") == "abc")
  }

  @Test func groupedEditsAreOneStep() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try editor.undoStack.group(named: "Add Page") {
      try editor.root.setFile(at: "Pages/2/text.txt", contents: Data("two".utf8))
      try editor.root.setFile(at: "Pages/2/image.png", contents: Data("png".utf8))
      try editor.root.renameChild(named: "Text.txt", to: "Cover.txt")
    }
    #expect(editor.undoStack.undoCount == 1 && editor.undoStack.undoMenuItemTitle == "Undo Add Page")
    try editor.undoStack.undo()
    #expect(!editor.root.hasUnsavedChanges && !editor.hasUnsavedChanges)
    try editor.undoStack.redo()
    #expect(try text(editor.root, "Pages/2/text.txt") == "two" && editor.root.nodeIfPresent(at: "Cover.txt") != nil)
  }

  @Test func cleanAndDirtyAcrossTheSavePoint() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    editor.undoStack.coalescingInterval = .zero
    try editor.root.setFile(at: "Text.txt", contents: Data("one".utf8))
    editor.undoStack.markSaved()  // as a document does after saving
    #expect(!editor.hasUnsavedChanges)
    try editor.root.renameNode(at: "Index.json", to: "Index2.json")
    #expect(editor.hasUnsavedChanges)
    try editor.undoStack.undo()
    #expect(!editor.hasUnsavedChanges)
    try editor.undoStack.undo()
    #expect(editor.hasUnsavedChanges)
    try editor.undoStack.redo()
    #expect(!editor.hasUnsavedChanges)
  }

  @Test func editsWithRegistrationDisabledStillDirtyTheDocument() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    try editor.undoStack.withoutUndoRegistration { try editor.root.setFile(at: "Text.txt", contents: Data("x".utf8)) }
    #expect(!editor.undoStack.canUndo && editor.hasUnsavedChanges)
  }

  @Test func aThousandEditsNeverReadAnUntouchedBigFile() throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    try temp.write("Notes.mydoc/Big.bin", Data(count: 4 << 20))
    let editor = PackageEditor(root: try PackageNode(contentsOf: FilePath(path)))
    editor.undoStack.coalescingInterval = .zero
    for index in 0..<1000 {
      switch index % 4 {
      case 0: try editor.root.setFile(at: "Text.txt", contents: Data("edit \(index)".utf8))
      case 1:
        try editor.root.moveNode(
          at: index % 8 == 1 ? "Big.bin" : "Data/Big.bin", to: index % 8 == 1 ? "Data/Big.bin" : "Big.bin")
      case 2: try editor.root.setPermissions(FilePermissions(rawValue: index % 8 == 2 ? 0o600 : 0o644), at: "Text.txt")
      default:
        try editor.root.renameNode(
          at: index % 8 == 3 ? "Images/tram.png" : "Images/bus.png", to: index % 8 == 3 ? "bus.png" : "tram.png")
      }
    }
    #expect(editor.undoStack.undoCount == 1000)
    while editor.undoStack.canUndo { try editor.undoStack.undo() }
    #expect(!editor.root.hasUnsavedChanges && !editor.hasUnsavedChanges)
    let big = try editor.root.node(at: "Big.bin")
    #expect(!big.isLoaded && big.diskLocation != nil)
  }
}

@Suite("Undoable package edits: names and direct changes")
struct PackageEditorNamingTests {
  @Test func onChangeReportsEachEditWithItsName() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    var titles: [String] = []
    editor.undoStack.onChange = { titles.append($0.undoMenuItemTitle) }
    try editor.root.renameNode(at: "Images/tram.png", to: "bus.png")
    try editor.root.setFile(at: "New.txt", contents: Data("new".utf8))
    #expect(titles == ["Undo Rename", "Undo Add File"])
  }

  @Test func settingANewFileIsAddFileAndAnExistingOneIsEdit() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    editor.undoStack.coalescingInterval = .zero
    try editor.root.setFile(at: "New.txt", contents: Data("new".utf8))
    #expect(editor.undoStack.undoMenuItemTitle == "Undo Add File")
    try editor.root.setFile(at: "Text.txt", contents: Data("changed".utf8))
    #expect(editor.undoStack.undoMenuItemTitle == "Undo Edit")
  }

  @Test func propertySettersAreUndoableChangesToo() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let node = try editor.root.node(at: "Text.txt")
    let permissions = node.permissions
    node.permissions = FilePermissions(rawValue: 0o600)
    #expect(editor.undoStack.undoMenuItemTitle == "Undo Change Permissions" && editor.hasUnsavedChanges)
    try editor.undoStack.undo()
    #expect(node.permissions == permissions && !editor.root.hasUnsavedChanges)
  }

  @Test func aReadOnlyTreeRefusesEveryMutatorAndChangesNothing() throws {
    let temp = try TemporaryDirectory()
    let editor = try openNotes(temp)
    let before = try listing(editor.root)
    let attempts: [(PackageNode) throws -> Void] = [
      { _ = try $0.setFile(at: "Text.txt", contents: Data()) },
      { try $0.setContents(Data(), at: "Text.txt") },
      { _ = try $0.makeDirectory(at: "New") },
      { _ = try $0.removeNode(at: "Images") },
      { try $0.moveNode(at: "Text.txt", to: "Body.txt") },
      { try $0.renameNode(at: "Images/tram.png", to: "bus.png") },
      { _ = try $0.setNode(PackageNode(regularFileWithContents: Data()), at: "X") },
      { _ = try $0.node(at: "Images").addRegularFile(contents: Data(), preferredName: "x") },
      { _ = try $0.removeChild(named: "Index.json") },
      { _ = try $0.replaceChild(named: "Index.json", with: PackageNode(regularFileWithContents: Data())) },
      { try $0.renameChild(named: "Index.json", to: "I.json") },
      { try $0.setPermissions(FilePermissions(rawValue: 0o600), at: "Text.txt") },
      { try $0.setModificationTime(FileTime(seconds: 1), at: "Text.txt") },
      {
        try $0.node(at: "Text.txt").setContents(
          from: DiskFileSource(path: FilePath(temp.path + "/Notes.mydoc/Index.json")))
      },
      { try $0.node(at: "Text.txt").read() },
    ]
    for attempt in attempts {
      #expect(throws: PackageError.self) { try editor.readingOnly(attempt) }
    }
    #expect(try listing(editor.root) == before)
    #expect(!editor.undoStack.canUndo && !editor.hasUnsavedChanges && !editor.root.hasUnsavedChanges)
    try editor.root.renameNode(at: "Images/tram.png", to: "bus.png")  // writable again afterwards
    #expect(editor.undoStack.canUndo)
  }
}

@Suite("Undoable package edits: lifetime")
struct PackageEditorLifetimeTests {
  @Test func undoOutlivesTheEditor() throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let root = try PackageNode(contentsOf: FilePath(path))
    let stack = UndoStack()
    do {
      let editor = PackageEditor(root: root, undoStack: stack)
      try root.removeNode(at: "Text.txt")
      withExtendedLifetime(editor) {}
    }
    #expect(root.recorder == nil)
    try stack.undo()
    #expect(try root.nodeIfPresent(at: "Text.txt") != nil)
    try stack.redo()
    #expect(try root.nodeIfPresent(at: "Text.txt") == nil)
    stack.removeAllActions(withTarget: root)
    #expect(!stack.canUndo && !stack.canRedo)
  }
}
