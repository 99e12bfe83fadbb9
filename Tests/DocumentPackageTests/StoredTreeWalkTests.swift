import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// The one walk over stored trees (``StoredTreeWalk``): at any depth without recursion, a shared subtree once or at
/// every path as asked, and a missing tree object named by its root and path.
@Suite("Stored tree walk")
struct StoredTreeWalkTests {
  /// Trees in memory by hash, as a store holds them.
  private struct Store {
    var trees: [String: TreeObject] = [:]

    /// Adds a tree with the subdirectories `directories` (name → tree) and the files `files`, and returns its hash.
    mutating func add(directories: [(String, String)] = [], files: [String] = []) -> String {
      var entries = directories.map { name, hash in
        TreeEntry(
          kind: .directory, permissions: [.ownerReadWriteExecute], time: TreeEntry.directoryTime, size: 0,
          reference: hash, name: name)
      }
      entries += files.map { name in
        TreeEntry(
          kind: .file, permissions: [.ownerReadWrite], time: FileTime(seconds: 1), size: 1,
          reference: ContentHash.of(Data(name.utf8)), name: name)
      }
      let tree = TreeObject(entries: entries)
      trees[tree.hash] = tree
      return tree.hash
    }
  }

  private enum Event: Equatable {
    case enter(String)
    case leave(String)
  }

  /// Walks `roots` through `store`, recording each step with its path; a missing tree throws the walk's damage.
  private func events(_ mode: StoredTreeWalk<Void>.Mode, _ roots: [String], in store: Store) throws -> [Event] {
    var walk = StoredTreeWalk<Void>(mode, roots: roots.enumerated().map { .init(name: "root \($0)", hash: $1) })
    var events: [Event] = []
    while let step = walk.next() {
      switch step {
      case .enter(let at):
        events.append(.enter(walk.path))
        guard let tree = store.trees[at.hash] else { throw walk.damage() }
        walk.descend(into: tree.subdirectories.sorted { $0.name < $1.name })
      case .leave:
        events.append(.leave(walk.path))
      }
    }
    return events
  }

  @Test("10,000 levels are walked pre- and post-order with one frame per level, no recursion")
  func deep() throws {
    var store = Store()
    var hash = store.add(files: ["bottom.txt"])
    for _ in 0..<10_000 { hash = store.add(directories: [("d", hash)]) }
    var walk = StoredTreeWalk<Void>(.eachTree(), roots: [.init(name: "version 1", hash: hash)])
    var entered = 0
    var left: [Int] = []
    var deepest = ""
    while let step = walk.next() {
      switch step {
      case .enter(let at):
        entered += 1
        let tree = try #require(store.trees[at.hash])
        if at.depth == 10_000 { deepest = walk.path }
        walk.descend(into: tree.subdirectories)
      case .leave(let at):
        left.append(at.depth)
      }
    }
    #expect(entered == 10_001)
    #expect(left == Array((0...10_000).reversed()))
    #expect(deepest.split(separator: "/").count == 10_000)
  }

  @Test("A shared subtree is entered once per walk in eachTree mode and at every path in eachPath mode")
  func shared() throws {
    var store = Store()
    let leaf = store.add(files: ["x.txt"])
    let shared = store.add(directories: [("inner", leaf)])
    let root = store.add(directories: [("a", shared), ("b", shared)])
    let second = store.add(directories: [("c", shared)])

    #expect(
      try events(.eachPath, [root], in: store) == [
        .enter(""), .enter("a"), .enter("a/inner"), .leave("a/inner"), .leave("a"),
        .enter("b"), .enter("b/inner"), .leave("b/inner"), .leave("b"), .leave(""),
      ])
    // Once across roots too: the second root's only subtree was walked from the first.
    #expect(
      try events(.eachTree(), [root, second], in: store) == [
        .enter(""), .enter("a"), .enter("a/inner"), .leave("a/inner"), .leave("a"), .leave(""),
        .enter(""), .leave(""),
      ])
    // Trees known already are not entered.
    #expect(try events(.eachTree(skipping: [shared]), [root], in: store) == [.enter(""), .leave("")])
  }

  @Test("A missing tree object is named by its root and its path")
  func missing() throws {
    var store = Store()
    let gone = store.add(files: ["lost.txt"])
    let middle = store.add(directories: [("b", gone)])
    let root = store.add(directories: [("a", middle)], files: ["top.txt"])
    store.trees[gone] = nil
    let damage = try #require(throws: StoredTreeDamage.self) { try events(.eachTree(), [root], in: store) }
    #expect(damage == StoredTreeDamage(root: "root 0", path: "a/b", hash: gone))
    #expect(damage.description == "the tree object of root 0, at a/b, is missing or damaged")
  }

  @Test("A tree entered without descending is neither walked below nor left")
  func notDescended() throws {
    var store = Store()
    let leaf = store.add(files: ["x.txt"])
    let root = store.add(directories: [("a", leaf)])
    var walk = StoredTreeWalk<Void>(.eachPath, roots: [.init(name: "state", hash: root)])
    var steps: [String] = []
    while let step = walk.next() {
      switch step {
      case .enter(let at):
        steps.append("enter \(walk.path)")
        if at.depth == 0 { walk.descend(into: store.trees[at.hash]!.subdirectories) }
      case .leave:
        steps.append("leave \(walk.path)")
      }
    }
    #expect(steps == ["enter ", "enter a", "leave "])
  }
  @Test("A version whose subdirectory's tree object is gone names the version and the path, on reading and checking")
  func versionWithAMissingTree() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    try document.root.setFile(at: "Text.txt", contents: Data("changed\n".utf8))
    try document.save()
    let store = try document.versionStore()
    // Version 1's tree of Pages/p1.
    func subtree(_ hash: String, _ name: String) throws -> String {
      let data = try Data(contentsOf: URL(fileURLWithPath: store.objectPath(hash).string))
      return try #require(TreeObject(decoding: data)?.entries[name]?.reference)
    }
    let p1 = try subtree(try subtree(try store.record(1).rootTree, "Pages"), "p1")
    try FileManager.default.removeItem(atPath: store.objectPath(p1).string)

    let error = try #require(throws: PackageError.self) { try store.tree(of: 1) }
    #expect(error.code == .corrupt)
    #expect(
      error.description
        == "version tree object is missing or damaged '\(store.objectPath(p1).string)' (version 1, at Pages/p1)")
    #expect(try store.damagedVersions().first?.problems == [error.description])
  }
}
