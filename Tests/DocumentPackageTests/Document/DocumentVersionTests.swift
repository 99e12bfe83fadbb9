import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

private func file(_ path: String) throws -> String {
  String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
}

private func text(_ document: Document, _ path: String) async throws -> String {
  try await document.read { String(decoding: try $0.node(at: path).contents(), as: UTF8.self) }
}

/// What used to need ``PackageFile``: versions, merging, conflicts, restore, save-as and save-to.
@Suite("Document versions, merging and save-as")
struct DocumentVersionTests {
  @Test func aSaveMergesWithAnotherWritersSave() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    // Unwatched: this is about what a save (or a check) finds; a watching document reacts to the
    // outside write by itself (OutsideChangeTests).
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    let other = try PackageFile(at: FilePath(path))
    try await document.edit { try $0.setFile(at: "Pages/p1/text.txt", contents: Data("mine\n".utf8)) }
    _ = try await text(document, "Pages/p2/text.txt")  // the document looked at what the other writer changes
    try other.root.setFile(at: "Pages/p2/text.txt", contents: Data("theirs\n".utf8))
    try other.save()
    await #expect(throws: PackageError.self) { try await document.save() }
    #expect(await document.state == .inConflict)
    #expect(try await document.saveMerging() == .merged(paths: []))
    #expect(await document.state == .normal)
    #expect(await !document.hasUnsavedChanges)
    #expect(try file(path + "/Pages/p1/text.txt") == "mine\n")
    #expect(try file(path + "/Pages/p2/text.txt") == "theirs\n")
    #expect(try await text(document, "Pages/p2/text.txt") == "theirs\n")  // the document has both sides
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("after\n".utf8)) }
    try await document.save()  // and keeps saving normally
    #expect(try file(path + "/Text.txt") == "after\n")
  }

  @Test func aConflictIsResolvedByKeepingThisDocumentsVersion() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    // Unwatched: this is about what a save (or a check) finds; a watching document reacts to the
    // outside write by itself (OutsideChangeTests).
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    let other = try PackageFile(at: FilePath(path))
    try await document.edit { try $0.setFile(at: "Images/b.png", contents: Data("mine".utf8)) }
    try other.root.setFile(at: "Images/b.png", contents: Data("theirs".utf8))
    try other.save()
    guard case .conflict(let version, let paths) = try await document.saveMerging() else {
      Issue.record("expected a conflict")
      return
    }
    #expect(paths == ["Images/b.png"])
    #expect(await document.state == .inConflict)
    #expect(try file(path + "/Images/b.png") == "theirs")
    #expect(try await document.unresolvedConflicts().map(\.id) == [version])
    try await document.resolveConflicts(keeping: version)
    #expect(await document.state == .normal)
    #expect(try file(path + "/Images/b.png") == "mine")
    #expect(try await text(document, "Images/b.png") == "mine")
    #expect(try await document.unresolvedConflicts().isEmpty)
    let kept = try await document.withVersionStore { store in
      try store.versions().contains {
        try store.tree(of: $0.id).node(at: "Images/b.png").contents() == Data("theirs".utf8)
      }
    }
    #expect(kept)  // their side is still a version: nothing was lost
  }

  @Test func restoreVersionBringsBackAPreviousStateAndIsAVersionToo() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    let document = try await Document(contentsOf: FilePath(path))
    await document.setVersionPolicy(.keepAll)
    #expect(await document.versionPolicy == .keepAll)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("v2\n".utf8)) }
    try await document.save()
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("v3\n".utf8)) }
    try await document.save()
    let versions = try await document.versions()
    #expect(versions.count == 2)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("unsaved\n".utf8)) }
    try await document.restoreVersion(versions[0].id)
    #expect(try file(path + "/Text.txt") == "hello\n")
    #expect(try await text(document, "Text.txt") == "hello\n")
    #expect(await !document.hasUnsavedChanges)
    #expect(await !document.canUndo)
    #expect(try await document.versions().count == 3)  // the replaced state (v3) was kept
  }

  @Test func saveAsMovesTheDocumentSaveToDoesNotAndUndoKeepsWorking() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    let copy = temp.appending("Copy.pkg")
    let moved = temp.appending("Moved.pkg")
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("edited\n".utf8)) }

    try await document.saveCopy(to: FilePath(copy))  // save to: a copy, the document stays unsaved
    #expect(try file(copy + "/Text.txt") == "edited\n")
    #expect(try file(path + "/Text.txt") == "hello\n")
    #expect(await document.hasUnsavedChanges)
    #expect(await document.path == FilePath(path))

    try await document.save(to: FilePath(moved))  // save as: the document now edits Moved.pkg
    #expect(await document.path == FilePath(moved))
    #expect(await !document.hasUnsavedChanges)
    #expect(try file(moved + "/Text.txt") == "edited\n")
    #expect(try file(path + "/Text.txt") == "hello\n")

    try await document.undo()  // undo still works after save-as
    #expect(await document.hasUnsavedChanges)
    try await document.save()
    #expect(try file(moved + "/Text.txt") == "hello\n")
    try await document.redo()
    try await document.save()
    #expect(try file(moved + "/Text.txt") == "edited\n")
    #expect(try file(path + "/Text.txt") == "hello\n")  // the old package never changed again
    #expect(try file(copy + "/Text.txt") == "edited\n")
  }

  /// Outsider attack on issue 36: `saveCopy(to:)` and `save(to:)` hard-linked the package's unchanged files into
  /// the copy, so that appending to a file of the copy changed the original, and the change times the links moved
  /// made the package's own versions "not kept" (`docpkg check` failed after five rounds of edit, save, save a
  /// copy). A copy, and a package saved as, share no file with the package.
  @Test func aCopyOrAPackageSavedAsSharesNoFileWithThePackage() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    for round in 1...5 {
      try await document.edit { try $0.setFile(at: "Round.txt", contents: Data("\(round)\n".utf8)) }
      try await document.save()
      try await document.saveCopy(to: FilePath(temp.appending("Copy\(round).pkg")))
    }
    let store = try VersionStore(forPackageAt: FilePath(path))
    _ = try store.settlePendingVersions()
    let versions = try store.versions()
    #expect(versions.count == 5 && versions.allSatisfy { $0.unkeptPaths.isEmpty }, "\(versions)")
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    try await document.save(to: FilePath(temp.appending("SavedAs.pkg")))
    for copy in ["Copy5.pkg", "SavedAs.pkg"] {
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temp.appending(copy + "/Text.txt")))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("written in place in \(copy)\n".utf8))
      try handle.close()
      #expect(try file(temp.appending(copy + "/Text.txt")) == "hello\nwritten in place in \(copy)\n")
    }
    #expect(try file(path + "/Text.txt") == "hello\n")
    #expect(try file(temp.appending("Copy4.pkg/Text.txt")) == "hello\n")
  }

  @Test func aReadOnlyDocumentCanListVersionsAndSaveACopy() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    let writer = try PackageFile(at: FilePath(path))
    try writer.root.setFile(at: "Text.txt", contents: Data("v2\n".utf8))
    try writer.save()
    let document = try await Document(contentsOf: FilePath(path), options: .readOnly)
    #expect(try await document.versions().count == 1)
    try await document.saveCopy(to: FilePath(temp.appending("Copy.pkg")))
    #expect(try file(temp.appending("Copy.pkg/Text.txt")) == "v2\n")
    await #expect(throws: PackageError.self) { try await document.restoreVersion(1) }
  }

  @Test func aDocumentSettlesTheVersionsItsSavesLeavePendingByItself() async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(in: temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("v2\n".utf8)) }
    try await document.save()
    try await document.close()  // returns once the background settle is done
    let store = try VersionStore(forPackageAt: FilePath(path))
    #expect(!store.hasPendingVersions)
    let versions = try store.versions()
    #expect(versions.count == 1 && versions.allSatisfy(\.unkeptPaths.isEmpty))
    let kept = try store.tree(of: versions[0].id)
    #expect(String(decoding: try kept.node(at: "Text.txt").contents(), as: UTF8.self) == "hello\n")
  }
}
