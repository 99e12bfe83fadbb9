import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// Issue 38, point 4: the Versions tab says what changed in each version, and one file's history opens.
@Suite("docpkg serve: what each version changed, a file's history")
struct VersionHistoryTests {
  /// Notes.mydoc saved three times: version 1 is the fixture, version 2 has the text "second", version 3 "third";
  /// the package then has `Added.txt` too.
  static func package(in temp: TemporaryDirectory) throws -> String {
    let package = try VersionsServeTests.packageWithVersions(in: temp)
    let file = try PackageFile(at: FilePath(package), options: .holdLock)
    try file.root.setFile(at: "Added.txt", contents: Data("a\n".utf8))
    try file.save()
    file.close()
    return package
  }

  @Test("each version's changes from the one before: counts and first paths")
  func changes() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.package(in: temp) }
    let served = try await Served(package: package)
    let reply = try await served.get("/api/changes")
    let versions = reply.json["versions"] as? [[String: Any]] ?? []
    #expect(versions.map { $0["id"] as? Int } == [1, 2, 3], "\(reply)")
    let first = versions.first ?? [:]
    // The fixture's four files, not its folders (as `docpkg diff --stat` counts).
    #expect(first["previous"] == nil && first["counts"] as? [String: Int] == ["added": 4], "\(first)")
    #expect((first["paths"] as? [String])?.contains("Images/tram.png") == true, "\(first)")
    for version in versions.dropFirst() {
      #expect(version["counts"] as? [String: Int] == ["modified": 1], "\(version)")
      #expect(version["paths"] as? [String] == ["Text.txt"] && version["total"] as? Int == 1)
      #expect(version["previous"] as? Int == (version["id"] as? Int ?? 0) - 1)
    }
    await served.stop()
  }

  @Test("a folder removed with the one file it held counts as diff --stat counts it: one file deleted")
  func folderRemovedCountsFiles() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { () -> String in
      let package = try temp.makeDirectory("V.mydoc")
      let file = try PackageFile(at: FilePath(package), options: .holdLock)
      file.versionPolicy = .keepAll
      try file.root.setFile(at: "a.txt", contents: Data("a\n".utf8))
      try file.root.setFile(at: "d/e/deep.txt", contents: Data("deep\n".utf8))
      try file.save()
      _ = try file.root.removeNode(at: "d")
      try file.save()
      // A version keeps the state a save replaces: one more save keeps the state without `d`.
      try file.root.setFile(at: "a.txt", contents: Data("b\n".utf8))
      try file.save()
      file.close()
      return package
    }
    let served = try await Served(package: package)
    let reply = try await served.get("/api/changes")
    let versions = reply.json["versions"] as? [[String: Any]] ?? []
    let last = versions.last ?? [:]
    #expect(versions.count == 3, "\(reply)")
    #expect(last["counts"] as? [String: Int] == ["deleted": 1], "\(reply)")
    #expect(last["paths"] as? [String] == ["d/e/deep.txt"] && last["total"] as? Int == 1, "\(reply)")
    await served.stop()
  }

  @Test("a file that became a folder is typeChanged in its history, as docpkg diff says")
  func fileBecameFolder() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { () -> String in
      let package = try temp.makeDirectory("T.mydoc")
      let file = try PackageFile(at: FilePath(package), options: .holdLock)
      file.versionPolicy = .keepAll
      try file.root.setFile(at: "new.txt", contents: Data("one\n".utf8))
      try file.save()
      _ = try file.root.removeNode(at: "new.txt")
      _ = try file.root.makeDirectory(at: "new.txt")
      try file.save()
      file.close()
      return package
    }
    let served = try await Served(package: package)
    let reply = try await served.get("/api/history", ["path": "new.txt"])
    let steps = reply.json["steps"] as? [[String: Any]] ?? []
    #expect(steps.map { $0["change"] as? String } == ["added", "typeChanged"], "\(reply)")
    await served.stop()
  }

  @Test("a file's history: the versions it changed in, then the current state, each with its patch")
  func history() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.package(in: temp) }
    let served = try await Served(package: package)
    let text = try await served.get("/api/history", ["path": "Text.txt"])
    let steps = text.json["steps"] as? [[String: Any]] ?? []
    // Version 3 and the current state hold the same text: no step for the current state.
    #expect(steps.map { $0["state"] as? String } == ["1", "2", "3"], "\(text)")
    #expect(steps.map { $0["change"] as? String } == ["added", "modified", "modified"])
    #expect(steps.map { $0["previous"] as? String } == [nil, "1", "2"])
    #expect(steps.last?["patch"] as? String == "@@ -1 +1 @@\n-second\n+third\n", "\(text)")
    let added = try await served.get("/api/history", ["path": "Added.txt"])
    let addedSteps = added.json["steps"] as? [[String: Any]] ?? []
    #expect(addedSteps.count == 1 && addedSteps.first?["state"] as? String == "current", "\(added)")
    #expect(addedSteps.first?["change"] as? String == "added" && addedSteps.first?["size"] as? Int == 2)
    let image = try await served.get("/api/history", ["path": "Images/tram.png"])
    let imageSteps = image.json["steps"] as? [[String: Any]] ?? []
    #expect(imageSteps.count == 1 && imageSteps.first?["patch"] == nil, "\(image)")
    let none = try await served.get("/api/history", ["path": "Nope.txt"])
    #expect(none.status == 200 && (none.json["steps"] as? [Any])?.isEmpty == true)
    #expect(try await served.get("/api/history", ["path": "../x"]).status == 400)
    await served.stop()
  }
}
