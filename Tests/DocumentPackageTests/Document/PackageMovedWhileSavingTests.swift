import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

private func file(_ path: String) throws -> String {
  try String(contentsOfFile: path, encoding: .utf8)
}

/// Where another program moves the package while it is saved.
enum MoveDuringSave: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `mv Doc.pkg Renamed.pkg`, in the same folder (a file manager's rename).
  case renamedInItsFolder
  /// `mv Doc.pkg Elsewhere/Doc.pkg`.
  case movedToAnotherFolder

  var testDescription: String { rawValue }

  func destination(of path: FilePath) -> FilePath {
    let folder = path.removingLastComponent()
    return self == .renamedInItsFolder ? folder.appending("Renamed.pkg") : folder.appending("Elsewhere/Doc.pkg")
  }
}

/// The package moved by another program while the document saves it, as a file manager can at any moment.
@Suite("Document package moved while saving")
struct PackageMovedWhileSavingTests {
  /// `mv` during a save, just before its swap (a long save of a big edit gives a file manager all the
  /// time it needs): the save follows the package and saves there. It never takes the package for
  /// deleted (which refused the next save in place and sent the app to `save(to:)`, or to `revert()`,
  /// which lost the edits), and never reports its own save as another program's change or keeps a
  /// conflict version for it.
  @Test(arguments: MoveDuringSave.allCases, [false, true])
  func aPackageMovedDuringASaveIsFollowedAndSavedThere(move: MoveDuringSave, watched: Bool) async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/Text.txt", "text\n")
    try temp.write("Doc.pkg/Notes/n.txt", "n\n")
    _ = try temp.makeDirectory("Elsewhere")
    let path = Syscalls.resolvingLinks(FilePath(temp.appending("Doc.pkg")))!
    let moved = move.destination(of: path)
    let document = try await Document(contentsOf: path, options: watched ? [] : .unwatched)
    let updates = await document.updates()
    try await document.edit { _ = try $0.setFile(at: "Big.bin", contents: Data(repeating: 1, count: 1 << 20)) }
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("mine\n".utf8)) }
    await document.setWillReplacePreviousState { _ in
      if FileManager.default.fileExists(atPath: path.string) { try Shell.run("mv", [path.string, moved.string]) }
    }
    try await document.save()
    await document.setWillReplacePreviousState(nil)
    #expect(await document.path == moved)
    #expect(await document.state == .normal)
    #expect(await !document.hasUnsavedChanges)
    #expect(await document.lastError == nil)
    #expect(try file(moved.string + "/Text.txt") == "mine\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: moved.string + "/Big.bin")).count == 1 << 20)
    #expect(try file(moved.string + "/Notes/n.txt") == "n\n")
    #expect(!FileManager.default.fileExists(atPath: path.string))
    #expect(await document.lastOutsideChange?.reaction == .followed)
    #expect(await document.lastOutsideChange?.changes == [PackageMonitor.Change(.packageMoved, moved.string)])
    // A plain save works there again; a part of the package only (a folder) moved during it too.
    try await document.edit { try $0.setFile(at: "Notes/n.txt", contents: Data("again\n".utf8)) }
    let again = moved.removingLastComponent().appending("Again.pkg")
    await document.setWillReplacePreviousState { _ in
      if FileManager.default.fileExists(atPath: moved.string) { try Shell.run("mv", [moved.string, again.string]) }
    }
    try await document.save()
    await document.setWillReplacePreviousState(nil)
    #expect(await document.path == again)
    #expect(await document.state == .normal)
    #expect(try file(again.string + "/Notes/n.txt") == "again\n")
    #expect(try file(again.string + "/Text.txt") == "mine\n")
    if watched {
      // The monitor's reports of the moves and of the saves come before this outside change: none
      // of them is news (at most a move the document followed already), and none kept a conflict version.
      let theirs = PackageMonitor.Change(.modified, "Text.txt")
      try Shell.run(
        "python3", ["-c", "open(__import__('sys').argv[1], 'w').write('theirs\\n')", again.string + "/Text.txt"])
      #expect(await eventually { await document.lastOutsideChange?.changes.contains(theirs) == true })
      let change = try #require(await document.lastOutsideChange)
      #expect(change.changes == [theirs])
      #expect(change.reaction == .reloaded)
      #expect(try await document.unresolvedConflicts().isEmpty)
      #expect(await document.state == .normal)
    }
    try await document.close()
    var published: [OutsideChange] = []
    for await update in updates { if let outside = update.outsideChange { published.append(outside) } }
    for change in published.dropLast(watched ? 1 : 0) {
      #expect(change.reaction == .followed, "\(published)")
      #expect(change.changes.allSatisfy { $0.kind == .packageMoved }, "\(published)")
    }
  }

  /// `Doc.pkg` (`Text.txt`, `Notes/n.txt`) open in a document with unsaved edits: `Notes/n.txt` and, for `whole`,
  /// `Text.txt` (two root entries: the root is exchanged); and where `move` takes it.
  private func editedDocument(_ move: MoveDuringSave, whole: Bool, options: Document.Options = [])
    async throws -> (TemporaryDirectory, FilePath, FilePath, Document)
  {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/Text.txt", "text\n")
    try temp.write("Doc.pkg/Notes/n.txt", "n\n")
    _ = try temp.makeDirectory("Elsewhere")
    let path = Syscalls.resolvingLinks(FilePath(temp.appending("Doc.pkg")))!
    let document = try await Document(contentsOf: path, options: options)
    try await document.edit {
      if whole { try $0.setFile(at: "Text.txt", contents: Data("mine\n".utf8)) }
      try $0.setFile(at: "Notes/n.txt", contents: Data("mine n\n".utf8))
    }
    return (temp, path, move.destination(of: path), document)
  }

  /// `mv path moved`, once (a hook may run at more than one save).
  private static func move(_ path: FilePath, to moved: FilePath) {
    if FileManager.default.fileExists(atPath: path.string) { _ = try? Shell.run("mv", [path.string, moved.string]) }
  }

  /// Outsider attack on issue 36 (F4): the package renamed in the instant after a save's swap, before the save
  /// pointed the model at what it saved (a file manager's rename as the save finishes). By the old path the save
  /// found nothing there: its edits stayed unsaved, and the document took its package for deleted (refusing every
  /// later save in place), or its own save for another program's replacement (a conflict version of its own file).
  /// The save now follows the package there, as the monitor does. Whole: two root entries changed (the root is
  /// exchanged); else one file.
  @Test(arguments: MoveDuringSave.allCases, [true, false])
  func aPackageMovedJustAfterASavesSwapIsFollowedThere(move: MoveDuringSave, whole: Bool) async throws {
    let (temp, path, moved, document) = try await editedDocument(move, whole: whole)
    defer { withExtendedLifetime(temp) {} }
    await document.setDidSwapIn { Self.move(path, to: moved) }
    try await document.save()
    await document.setDidSwapIn(nil)
    #expect(await document.path == moved)
    #expect(await document.state == .normal)
    #expect(await !document.hasUnsavedChanges)
    #expect(await document.lastError == nil)
    #expect(await document.lastOutsideChange?.reaction == .followed)
    #expect(await document.lastOutsideChange?.changes == [PackageMonitor.Change(.packageMoved, moved.string)])
    #expect(try file(moved.string + "/Notes/n.txt") == "mine n\n")
    #expect(try file(moved.string + "/Text.txt") == (whole ? "mine\n" : "text\n"))
    #expect(!FileManager.default.fileExists(atPath: path.string))
    // Saved in place there again, and the monitor's reports of the move and the saves are no news to it.
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("again\n".utf8)) }
    try await document.save()
    #expect(try file(moved.string + "/Text.txt") == "again\n")
    try await Task.sleep(for: .milliseconds(1500))
    #expect(await document.state == .normal)
    #expect(await document.path == moved)
    #expect(try await document.unresolvedConflicts().isEmpty)
    try await document.close()
  }

  /// As above, the rename made once the save is done, before the document looked at its package again: it held the
  /// root by its path, found nothing there (or another package), and took its package for deleted when the monitor,
  /// or its next save, found it gone. It now holds the root the save left, and follows it.
  @Test(arguments: MoveDuringSave.allCases, [true, false])
  func aPackageMovedAsASaveEndsIsFollowedByTheNextSave(move: MoveDuringSave, whole: Bool) async throws {
    let (temp, path, moved, document) = try await editedDocument(move, whole: whole, options: .unwatched)
    defer { withExtendedLifetime(temp) {} }
    await document.setDidSaveInPlace { Self.move(path, to: moved) }
    try await document.save()
    await document.setDidSaveInPlace(nil)
    #expect(await !document.hasUnsavedChanges)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("again\n".utf8)) }
    try await document.save()
    #expect(await document.path == moved)
    #expect(await document.state == .normal)
    #expect(await document.lastOutsideChange?.reaction == .followed)
    #expect(try file(moved.string + "/Text.txt") == "again\n")
    #expect(try file(moved.string + "/Notes/n.txt") == "mine n\n")
    #expect(!FileManager.default.fileExists(atPath: path.string))
    try await document.close()
  }

  /// Moved to another file system (a copy, then a deletion) or deleted during the save: no move
  /// to follow, the package is gone, and the document says so, as before.
  @Test func aPackageDeletedDuringASaveIsStillDeleted() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/Text.txt", "text\n")
    let path = Syscalls.resolvingLinks(FilePath(temp.appending("Doc.pkg")))!
    let document = try await Document(contentsOf: path, options: .unwatched)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("mine\n".utf8)) }
    await document.setWillReplacePreviousState { _ in try Shell.run("rm", ["-rf", path.string]) }
    await #expect(throws: PackageError.self) { try await document.save() }
    await document.setWillReplacePreviousState(nil)
    #expect(await document.state.contains(.deleted))
    #expect(await document.path == path)
    let rescued = path.removingLastComponent().appending("Rescued.pkg")
    try await document.save(to: rescued)
    #expect(try file(rescued.string + "/Text.txt") == "mine\n")
    try await document.close()
  }
}
