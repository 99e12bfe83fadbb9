import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A program that does not take the package's lock (a shell's `echo > P.mydoc/s.txt`) creates a file
/// in a folder a save rebuilds, while the save runs: before the save's last check (the save sees it:
/// a plain save refuses, a merging save merges again) or after it, just before the swap (the save
/// takes it into the package after the swap, see `ReplacedTreeSweep`). No save loses it.
@Suite("Files another program makes during a save")
struct OutsideWriterDuringSaveTests {
  /// `P.pkg` with `A.txt`, `B.txt`, `C.txt` and the same three in `Sub/`.
  private func makePackage(_ temp: TemporaryDirectory) throws -> String {
    for folder in ["", "Sub/"] {
      for name in ["A", "B", "C"] { try temp.write("P.pkg/\(folder)\(name).txt", "\(name.lowercased())\n") }
    }
    return temp.appending("P.pkg")
  }

  /// Edits that make a save rebuild `folder` ("" the root, or "Sub/"): a change, a new file, a
  /// removal and a rename, none of which another program's file may undo.
  private func edit(_ root: PackageNode, in folder: String) throws {
    try root.setFile(at: folder + "A.txt", contents: Data("mine\n".utf8))
    try root.setFile(at: folder + "own.txt", contents: Data("own\n".utf8))
    try root.removeNode(at: folder + "B.txt")
    try root.renameNode(at: folder + "C.txt", to: "D.txt")
  }

  private func expectSaved(_ path: String, in folder: String) throws {
    #expect(try read(path + "/\(folder)A.txt") == "mine\n")
    #expect(try read(path + "/\(folder)own.txt") == "own\n")
    #expect(try read(path + "/\(folder)D.txt") == "c\n")
    #expect(!FileManager.default.fileExists(atPath: path + "/\(folder)B.txt"))  // removed stays removed
    #expect(!FileManager.default.fileExists(atPath: path + "/\(folder)C.txt"))  // renamed is not back
  }

  @Test(arguments: ["", "Sub/"], [false, true])
  func aPlainSaveKeepsAFileMadeAfterItsLastCheck(folder: String, versions: Bool) throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let package = try PackageFile(at: FilePath(path))
    package.versionPolicy = versions ? .default : .none
    try edit(package.root, in: folder)
    package.willReplacePreviousState = { _ in
      try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: path + "/\(folder)s.txt"))
    }
    try package.save()
    #expect(try read(path + "/\(folder)s.txt") == "theirs\n")
    try expectSaved(path, in: folder)
    #expect(try package.root.node(at: folder + "s.txt").contents() == Data("theirs\n".utf8))
    package.willReplacePreviousState = nil
    try package.root.setFile(at: "later.txt", contents: Data())
    try package.save()  // not a conflict: the package holds what the model shows
    #expect(try read(path + "/\(folder)s.txt") == "theirs\n")
  }

  @Test func aPlainSaveRefusesWhenAFileIsMadeWhileItBuilds() throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let package = try PackageFile(at: FilePath(path))
    package.versionPolicy = .none
    try edit(package.root, in: "Sub/")
    package.willCheckBeforeCommit = { try? Data("theirs\n".utf8).write(to: URL(fileURLWithPath: path + "/Sub/s.txt")) }
    let error = #expect(throws: PackageError.self) { try package.save() }
    #expect(error?.code == .conflict)
    #expect(
      error?.description == "package changed on disk while it was saved, not overwriting: '\(path)' (modified Sub)")
    #expect(try read(path + "/Sub/s.txt") == "theirs\n")
    #expect(try read(path + "/Sub/A.txt") == "a\n")  // the package as it was
  }

  @Test func aNameTheSaveTookKeepsBothFiles() throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let package = try PackageFile(at: FilePath(path))
    package.versionPolicy = .none
    try edit(package.root, in: "")
    package.willReplacePreviousState = { _ in
      try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: path + "/own.txt"))
    }
    #expect(try package.saveMerging() == .merged(paths: ["own (outside change).txt"]))
    #expect(try read(path + "/own.txt") == "own\n")
    #expect(try read(path + "/own (outside change).txt") == "theirs\n")
  }

  @Test func aFolderTheSaveCarriesWithoutListingItKeepsAFileMadeMeanwhile() throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    try temp.write("P.pkg/Big/Deep/x.txt", "x\n")
    let package = try PackageFile(at: FilePath(path))
    package.versionPolicy = .none
    try edit(package.root, in: "")  // the whole root is rebuilt; Big is carried from disk
    package.willReplacePreviousState = { _ in
      try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: path + "/Big/Deep/s.txt"))
    }
    try package.save()
    #expect(try read(path + "/Big/Deep/s.txt") == "theirs\n")
    #expect(try read(path + "/Big/Deep/x.txt") == "x\n")
  }

  /// - Parameters:
  ///   - outsideFirst: Another program changed `B.txt` before the save too (the save merges from the start).
  ///   - afterCheck: The file is made after the save's last check (else before it: the save merges again).
  @Test(arguments: ["", "Sub/"], [(false, false), (false, true), (true, false), (true, true)])
  func packageFileSaveMergingKeepsAFileMadeDuringIt(folder: String, timing: (outsideFirst: Bool, afterCheck: Bool))
    throws
  {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let package = try PackageFile(at: FilePath(path))
    try package.root.setFile(at: folder + "A.txt", contents: Data("mine\n".utf8))
    try package.root.setFile(at: folder + "own.txt", contents: Data("own\n".utf8))
    if timing.outsideFirst { try temp.write("P.pkg/\(folder)C.txt", "theirs first\n") }
    let outside = path + "/\(folder)s.txt"
    if timing.afterCheck {
      package.willReplacePreviousState = { _ in try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: outside)) }
    } else {
      package.willCheckBeforeCommit = {
        guard !FileManager.default.fileExists(atPath: outside) else { return }
        try? Data("theirs\n".utf8).write(to: URL(fileURLWithPath: outside))
      }
    }
    let outcome = try package.saveMerging()
    guard case .merged(let paths) = outcome else {
      Issue.record("expected merged, got \(outcome)")
      return
    }
    // Made after the last check, it was taken in after the swap and is named; made before, it was merged.
    #expect(paths.contains(folder + "s.txt") == timing.afterCheck)
    #expect(try read(outside) == "theirs\n")
    #expect(try read(path + "/\(folder)A.txt") == "mine\n")
    #expect(try read(path + "/\(folder)own.txt") == "own\n")
    if timing.outsideFirst { #expect(try read(path + "/\(folder)C.txt") == "theirs first\n") }
    #expect(try package.root.node(at: folder + "s.txt").contents() == Data("theirs\n".utf8))
  }

  @Test func saveMergingGivesUpWhenAFileKeepsChanging() throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let package = try PackageFile(at: FilePath(path))
    try package.root.setFile(at: "own.txt", contents: Data("own\n".utf8))
    try package.root.setFile(at: "A.txt", contents: Data("mine\n".utf8))
    let counter = Counter()
    package.willCheckBeforeCommit = {
      counter.value += 1
      if let handle = FileHandle(forWritingAtPath: path + "/B.txt") {  // written in place, as an editor does
        handle.seekToEndOfFile()
        handle.write(Data("\(counter.value)\n".utf8))
        handle.closeFile()
      }
    }
    let error = #expect(throws: PackageError.self) { try package.saveMerging() }
    #expect(error?.code == .changedOnDisk)
    #expect(error?.description.contains("kept changing") == true)
    #expect(counter.value == PackageFile.mergeAttempts)
    #expect(try read(path + "/A.txt") == "a\n")  // nothing saved, nothing lost
    #expect(try read(path + "/B.txt") == "b\n1\n2\n3\n4\n5\n")
  }

  @Test func saveMergingTakesInFilesAddedAtEveryTryTheLastTime() throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let package = try PackageFile(at: FilePath(path))
    try package.root.setFile(at: "own.txt", contents: Data("own\n".utf8))
    try package.root.setFile(at: "A.txt", contents: Data("mine\n".utf8))
    let counter = Counter()
    package.willCheckBeforeCommit = {
      counter.value += 1
      try? Data("\(counter.value)\n".utf8).write(to: URL(fileURLWithPath: path + "/s-\(counter.value).txt"))
    }
    #expect(try package.saveMerging() == .merged(paths: ["s-\(PackageFile.mergeAttempts).txt"]))
    #expect(counter.value == PackageFile.mergeAttempts)
    #expect(try read(path + "/A.txt") == "mine\n")
    for index in 1...counter.value { #expect(try read(path + "/s-\(index).txt") == "\(index)\n") }
  }

  /// A document's save keeps the previous state as a pending version (it moves the replaced folder
  /// into the version store): the file is taken out of it first.
  @Test(arguments: ["", "Sub/"])
  func aDocumentsPlainSaveKeepsAFileMadeAfterItsLastCheck(folder: String) async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.edit { try self.edit($0, in: folder) }
    let outside = path + "/\(folder)s.txt"
    await document.setWillReplacePreviousState { _ in try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: outside))
    }
    try await document.save()
    await document.setWillReplacePreviousState(nil)
    #expect(try read(outside) == "theirs\n")
    try expectSaved(path, in: folder)
    try await document.close()
    let check = try Shell.docpkg(["check", path])
    #expect(check.status == 0, "\(check.standardOutput) \(check.standardError)")
  }

  @Test(arguments: ["", "Sub/"], [false, true])
  func documentSaveMergingKeepsAFileMadeDuringIt(folder: String, afterCheck: Bool) async throws {
    let temp = try TemporaryDirectory()
    let path = try makePackage(temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.edit { try $0.setFile(at: folder + "A.txt", contents: Data("mine\n".utf8)) }
    try await document.edit { try $0.setFile(at: folder + "own.txt", contents: Data("own\n".utf8)) }
    let outside = path + "/\(folder)s.txt"
    if afterCheck {
      await document.setWillReplacePreviousState { _ in
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: outside))
      }
    } else {
      await document.setWillCheckBeforeCommit {
        guard !FileManager.default.fileExists(atPath: outside) else { return }
        try? Data("theirs\n".utf8).write(to: URL(fileURLWithPath: outside))
      }
    }
    let outcome = try await document.saveMerging()
    #expect(outcome == .merged(paths: afterCheck ? [folder + "s.txt"] : []))
    #expect(try read(outside) == "theirs\n")
    #expect(try read(path + "/\(folder)A.txt") == "mine\n")
    let shown = try await document.read {
      String(decoding: try $0.node(at: folder + "s.txt").contents(), as: UTF8.self)
    }
    #expect(shown == "theirs\n")
    #expect(await !document.hasUnsavedChanges)
    try await document.close()
  }
}

/// A count a test's hook keeps (hooks run on the saving thread, one at a time).
private final class Counter: @unchecked Sendable {
  var value = 0
}
