import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Every entry below `path` (hidden ones too): a file as its contents, a folder as "/", a link as "-> destination".
private func everything(below path: String) throws -> [String: String] {
  var found: [String: String] = [:]
  let manager = FileManager.default
  let enumerator = manager.enumerator(atPath: path)
  while let relative = enumerator?.nextObject() as? String {
    let full = path + "/" + relative
    let type = try manager.attributesOfItem(atPath: full)[.type] as? FileAttributeType
    switch type {
    case .typeDirectory: found[relative] = "/"
    case .typeSymbolicLink: found[relative] = "-> " + (try manager.destinationOfSymbolicLink(atPath: full))
    default: found[relative] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: full)), as: UTF8.self)
    }
  }
  return found
}

/// Where `save(to:)` and `saveCopy(to:)` must not write: a folder holding the document's own package,
/// the package itself (saved or not), its version store, a folder of other packages.
@Suite("Save as: refused destinations")
struct SaveAsDestinationTests {
  /// `Projects/` holding `P.mydoc` (with `A.txt`, `Sub/x.txt`), `Thesis.txt`, and `Shelf/` holding another
  /// saved package; the document edits `P.mydoc` (saved once when `saved`, so that its version store exists).
  private func makeProjects(in temp: TemporaryDirectory, saved: Bool) async throws -> (Document, String) {
    try temp.write("Projects/P.mydoc/A.txt", "a\n")
    try temp.write("Projects/P.mydoc/Sub/x.txt", "x\n")
    try temp.write("Projects/Thesis.txt", "two years of work\n")
    try temp.write("Shelf/Other.mydoc/o.txt", "o\n")
    let other = try PackageFile(at: FilePath(temp.appending("Shelf/Other.mydoc")))
    _ = try other.root.setFile(at: "o.txt", contents: Data("o2\n".utf8))
    try other.save()  // keeps a version: Shelf holds a version store
    other.close()
    let projects = temp.appending("Projects")
    let document = try await Document(contentsOf: FilePath(projects + "/P.mydoc"))
    try await document.edit { try $0.setFile(at: "A.txt", contents: Data("mine\n".utf8)) }
    if saved {
      try await document.save()
      await PendingSettler.shared.waitForBackgroundSettles()  // the version it kept, settled: the store is still
      try await document.edit { try $0.setFile(at: "A.txt", contents: Data("unsaved\n".utf8)) }
    }
    return (document, projects)
  }

  @Test(arguments: [false, true])
  func aFolderHoldingThePackageItsStoreOrOtherPackagesIsRefusedAndNothingChanges(saved: Bool) async throws {
    let temp = try TemporaryDirectory()
    let (document, projects) = try await makeProjects(in: temp, saved: saved)
    var destinations = [
      projects + "/", projects, temp.path, projects + "/P.mydoc/..", projects + "/P.mydoc/Sub/Inner.mydoc",
      projects + "/P.mydoc/Inner.mydoc", temp.appending("Shelf"), temp.appending("Shelf/.Other.mydoc.docpkg-versions"),
    ]
    if saved {
      destinations += [projects + "/.P.mydoc.docpkg-versions", projects + "/.P.mydoc.docpkg-versions/Inner.mydoc"]
    }
    let before = try everything(below: temp.path)
    let stateBefore = await document.state
    for destination in destinations {
      let saveAs = await #expect(throws: PackageError.self, "\(destination)") {
        try await document.save(to: FilePath(destination))
      }
      #expect(saveAs?.code == .invalidArgument, "\(destination): \(String(describing: saveAs))")
      #expect(saveAs?.description.contains(destination) == true, "\(String(describing: saveAs))")
      let copy = await #expect(throws: PackageError.self, "\(destination)") {
        try await document.saveCopy(to: FilePath(destination))
      }
      #expect(copy?.code == .invalidArgument, "\(destination): \(String(describing: copy))")
      let after = try everything(below: temp.path)
      let changed = Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }.sorted()
      #expect(changed.isEmpty, "\(destination): \(changed)")
      #expect(await document.state == stateBefore)
      #expect(await document.path == FilePath(projects + "/P.mydoc"))
      #expect(await document.hasUnsavedChanges)
    }
    // Saving as another package beside it, or over an unrelated package, is what save-as is for.
    try temp.write("Projects/Old.mydoc/old.txt", "old\n")
    let result = try await document.save(to: FilePath(projects + "/Old.mydoc"))
    #expect(result.carriedEverything)
    #expect(try everything(below: projects + "/Old.mydoc")["A.txt"] == (saved ? "unsaved\n" : "mine\n"))
    #expect(try String(contentsOfFile: projects + "/Thesis.txt", encoding: .utf8) == "two years of work\n")
    try await document.close()
  }

  @Test func aDeletedPackagesFolderIsRefusedToo() async throws {
    let temp = try TemporaryDirectory()
    let (document, projects) = try await makeProjects(in: temp, saved: true)
    try FileManager.default.removeItem(atPath: projects + "/P.mydoc")
    let refused = await #expect(throws: PackageError.self) { try await document.save(to: FilePath(projects + "/")) }
    #expect(refused?.code == .invalidArgument, "\(String(describing: refused))")
    #expect(try String(contentsOfFile: projects + "/Thesis.txt", encoding: .utf8) == "two years of work\n")
    let result = try await document.save(to: FilePath(projects + "/Rescued.mydoc"))
    #expect(result.carriedEverything || result.uncarriedPaths == ["Sub"], "\(result.uncarriedPaths)")
    try await document.close()
  }

  @Test func aPackageFileRefusesTheFolderHoldingIt() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Projects/P.mydoc/A.txt", "a\n")
    try temp.write("Projects/Thesis.txt", "t\n")
    let package = try PackageFile(at: FilePath(temp.appending("Projects/P.mydoc")))
    let refused = #expect(throws: PackageError.self) { try package.save(to: FilePath(temp.appending("Projects"))) }
    #expect(refused?.code == .invalidArgument)
    #expect(throws: PackageError.self) {
      try package.saveCopy(to: FilePath(temp.appending("Projects/P.mydoc/In.mydoc")))
    }
    #expect(FileManager.default.fileExists(atPath: temp.appending("Projects/Thesis.txt")))
    package.close()
  }
}
