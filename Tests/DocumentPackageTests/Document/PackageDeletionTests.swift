import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// How another program deletes a package: all at once, or one entry at a time.
enum Deleter: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `rm -rf P`: files, then each folder, then the package, in one process.
  case rmRecursive
  /// `find P -depth -exec rm -rf {} ;`: a process per entry, so the deletion spans many of the
  /// monitor's bursts.
  case findOneByOne

  var testDescription: String { rawValue }

  /// How many packages a test deletes this way.
  var rounds: Int { self == .rmRecursive ? 6 : 2 }

  /// How many folders of 50 files the package has: a process per entry takes longer.
  var folders: Int { self == .rmRecursive ? 6 : 3 }

  func delete(_ path: String) throws {
    switch self {
    case .rmRecursive: try Shell.run("rm", ["-rf", path])
    case .findOneByOne: try Shell.run("find", [path, "-depth", "-exec", "rm", "-rf", "{}", ";"])
    }
  }
}

/// A package of `folders` folders of `files` files each, and `Text.txt`.
private func makeFolderedPackage(in temp: TemporaryDirectory, folders: Int, files: Int = 50) throws -> (
  path: String, files: [String]
) {
  var written = ["Text.txt"]
  try temp.write("Doc.pkg/Text.txt", "text\n")
  for folder in 0..<folders {
    for file in 0..<files {
      let relative = "Folder \(folder)/file \(file).txt"
      try temp.write("Doc.pkg/" + relative, "\(relative)\n")
      written.append(relative)
    }
  }
  return (temp.appending("Doc.pkg"), written)
}

/// A watching ``Document`` whose package another program deletes.
@Suite("Document package deleted by another program")
struct PackageDeletionTests {
  @Test(arguments: Deleter.allCases)
  func aPackageDeletedEntryByEntryIsReportedAsDeletedWithNothingMergedBefore(_ deleter: Deleter) async throws {
    for round in 1...deleter.rounds {
      let temp = try TemporaryDirectory()
      let (path, files) = try makeFolderedPackage(in: temp, folders: deleter.folders)
      let document = try await Document(contentsOf: FilePath(path))
      _ = try await document.read { root in
        for file in files { _ = try root.node(at: file).contents() }
      }
      try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("unsaved\n".utf8)) }
      try deleter.delete(path)
      #expect(await eventually { await document.state.contains(.deleted) }, "round \(round)")
      // One reaction, the deletion: no outside removal was merged (and reported) before it.
      let change = await document.lastOutsideChange
      let seen = "round \(round): reaction \(String(describing: change?.reaction)), number \(change?.number ?? 0)"
      #expect(change?.reaction == .deleted, "\(seen)")
      #expect(change?.number == 1, "\(seen)")
      // All the document held is saved elsewhere.
      let rescue = temp.appending("Rescued.pkg")
      let result = try await document.save(to: FilePath(rescue))
      #expect(result.carriedEverything, "round \(round): \(result.uncarriedPaths)")
      let missing = files.filter { !FileManager.default.fileExists(atPath: rescue + "/" + $0) }
      #expect(missing.isEmpty, "round \(round): \(missing.count) missing, first \(missing.prefix(3))")
      #expect(try String(contentsOfFile: rescue + "/Text.txt", encoding: .utf8) == "unsaved\n")
      try await document.close()
    }
  }
}
