import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A document opened by a bare name (`Document(contentsOf: "P.mydoc")`, the package in the current
/// folder), as an app started in its documents' folder, or a tool given a name on its command line,
/// opens it. The current folder is the process's: this suite changes it, so it runs in a process
/// of its own (the Makefile's `ALONE_TEST_SUITES`), its tests one at a time.
@Suite("A document opened by a bare name", .serialized)
struct DocumentRelativePathTests {
  /// Runs `body` in `folder`, then goes back to the folder the process was in.
  private func inFolder<T>(_ folder: String, _ body: () async throws -> T) async rethrows -> T {
    let old = FileManager.default.currentDirectoryPath
    _ = FileManager.default.changeCurrentDirectoryPath(folder)
    defer { _ = FileManager.default.changeCurrentDirectoryPath(old) }
    return try await body()
  }

  /// Saves one after another — whole saves (two root entries changed), a root entry's, a folder's —
  /// with another program's saves between them, as an app saves: each succeeds, leaves the document
  /// clean, and none is refused as if another package had taken the package's place (12 of 30 saves
  /// were, each after a save that re-based the whole model, which missed a bare name's root).
  @Test(arguments: [false, true])
  func savesOfAPackageOpenedByABareNameAreNotTakenForAReplacement(watched: Bool) async throws {
    let temp = try TemporaryDirectory()
    try temp.write("P.mydoc/Text.txt", "t\n")
    try temp.write("P.mydoc/sub/a.txt", "a\n")
    try await inFolder(temp.path) {
      let document = try await Document(contentsOf: "P.mydoc", options: watched ? [] : .unwatched)
      for round in 0..<6 {
        try await document.edit {
          try $0.setFile(at: "Text.txt", contents: Data("mine \(round)\n".utf8))
          if round % 2 == 0 { try $0.setFile(at: "m\(round).txt", contents: Data("m".utf8)) }  // a whole save
          if round % 3 == 2 { try $0.setFile(at: "sub/a.txt", contents: Data("a \(round)\n".utf8)) }
        }
        _ = try await document.saveMerging()
        #expect(await !document.hasUnsavedChanges)
        #expect(await document.state == .normal)
        #expect(try read(temp.appending("P.mydoc/Text.txt")) == "mine \(round)\n")
        // Another program writes a file the document never loaded.
        let other = try PackageFile(at: FilePath(temp.appending("P.mydoc")))
        try other.root.setFile(at: "others/o\(round).txt", contents: Data("o".utf8))
        try other.save()
        if watched {
          // The file, or the folder it is in: a folder the document never listed, replaced by the other
          // program's save, is reported whole (README, "A document's monitor starts by listing the package's root").
          let theirs = "others/o\(round).txt"
          #expect(
            await eventually {
              await document.lastOutsideChange?.changes.contains {
                $0.path == theirs || theirs.hasPrefix($0.path + "/")
              } == true
            })
        }
      }
      #expect(await document.state == .normal)
      try await document.close()
    }
  }

  /// Without another program at all: two plain saves in a row, the first a whole save.
  @Test func twoSavesInARow() async throws {
    let temp = try TemporaryDirectory()
    try temp.write("P.mydoc/Text.txt", "t\n")
    try await inFolder(temp.path) {
      let document = try await Document(contentsOf: "P.mydoc", options: .unwatched)
      try await document.edit {
        try $0.setFile(at: "Text.txt", contents: Data("one\n".utf8))
        try $0.setFile(at: "New.txt", contents: Data("new\n".utf8))
      }
      try await document.save()
      #expect(await !document.hasUnsavedChanges)
      try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("two\n".utf8)) }
      try await document.save()
      #expect(try read(temp.appending("P.mydoc/Text.txt")) == "two\n")
      try await document.close()
    }
  }
}
