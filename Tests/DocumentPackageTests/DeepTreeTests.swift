import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 23: no code path may recurse to a depth the input chooses. Trees 10,000 directories deep
/// made in memory are walked, compared, copied and released on a thread with a 512 KiB stack (the
/// size of a worker's). Each library path on disk runs on a package `DOCPKG_DEEP_TREE_DEPTH`
/// directories deep (300 by default: a model node keeps its directory's path, so loading costs
/// depth × path length, minutes at 10,000 in a debug build) and on one whose path is past PATH_MAX,
/// and either works or throws one `PackageError` naming the path.
@Suite("Deep trees")
struct DeepTreeTests {
  static let depth = DeepPackage.depth
  static let bottom = DeepTree.innerPath(depth: depth) + "/" + DeepTree.fileName
  /// A name of 200 bytes: 25 levels of it are 5,000 bytes, past PATH_MAX.
  static let longName = String(repeating: "n", count: 200)

  /// Runs `body` off the cooperative pool on a thread whose stack is 512 KiB, like a Dispatch or Swift
  /// concurrency worker's: a walk that recursed as deep as the tree would overflow it.
  func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await offThePool(stackSize: 512 << 10, body)
  }

  /// What a refusal must be: one line, naming a path.
  func expectOneLine(_ error: any Error) {
    #expect(error is PackageError, "\(error)")
    let text = "\(error)"
    #expect(!text.contains("\n"), "\(text.prefix(300))")
    #expect(((error as? PackageError)?.path ?? "").isEmpty == false)
  }

  @Test func readsWalksComparesAndReleasesADeepPackage() async throws {
    let package = try DeepPackage()
    let (directories, text, matches) = try await onSmallStack { () throws -> (Int, String, Bool) in
      let root = try PackageNode(contentsOf: FilePath(package.path))
      var directories = 0
      try root.walk { node, _, _ in
        if node.kind == .directory { directories += 1 }
        return true
      }
      let text = String(decoding: try root.node(at: Self.bottom).contents(), as: UTF8.self)
      let matches = root.matchesContents(of: FilePath(package.path))
      #expect(!root.hasUnsavedChanges)
      root.listDirectoriesInParallel()
      return (directories, text, matches)  // the tree is released here, on the small stack
    }
    #expect(directories == Self.depth + 1)
    #expect(text == "bottom\n")
    #expect(matches)
    let everything = try await onSmallStack {
      try PackageNode(contentsOf: FilePath(package.path), options: .immediate).kind
    }
    #expect(everything == .directory)
  }

  /// A chain of `depth` directories made in memory, with a file at the bottom.
  static func chain(depth: Int, contents: String) throws -> PackageNode {
    let root = try PackageNode(directoryWithChildren: [:])
    var directory = root
    for _ in 0..<depth {
      let child = try PackageNode(directoryWithChildren: [:])
      try directory.adopt(child, as: DeepTree.directoryName)
      directory = child
    }
    try directory.adopt(PackageNode(regularFileWithContents: Data(contents.utf8)), as: DeepTree.fileName)
    return root
  }

  @Test func walksComparesCopiesAndReleasesATreeMadeInMemory10000Deep() async throws {
    let depth = 10_000
    let paths = try await onSmallStack { () throws -> [String] in
      let old = try Self.chain(depth: depth, contents: "old\n")
      let new = try Self.chain(depth: depth, contents: "new\n")
      var count = 0
      try old.walk { _, _, _ in
        count += 1
        return true
      }
      #expect(count == depth + 2)
      #expect(old.hasUnsavedChanges)
      let copy = try old.detachedCopy()
      #expect(
        try copy.node(at: DeepTree.innerPath(depth: depth) + "/" + DeepTree.fileName).contents() == Data("old\n".utf8))
      return try new.difference(from: old).map(\.path)  // the trees are released here, on the small stack
    }
    #expect(paths == [DeepTree.innerPath(depth: depth) + "/" + DeepTree.fileName])
  }

  @Test func readsAndSavesPastPathMax() throws {
    let temp = try TemporaryDirectory("deep")
    let path = temp.appending("Long.pkg")
    try DeepTree.make(at: path, depth: 25, name: Self.longName)
    defer { try? DeepTree.remove(path) }
    let bottom = DeepTree.innerPath(depth: 25, name: Self.longName) + "/" + DeepTree.fileName
    #expect(bottom.utf8.count + path.utf8.count > 4096)
    let file = try PackageFile(at: FilePath(path))
    file.versionPolicy = .none
    #expect(try file.root.node(at: bottom).contents() == Data("bottom\n".utf8))
    try file.root.setFile(at: bottom, contents: Data("changed\n".utf8))
    try file.save()
    #expect(try PackageNode(contentsOf: FilePath(path)).node(at: bottom).contents() == Data("changed\n".utf8))
    let monitor = try PackageMonitor(watching: FilePath(path))
    monitor.stop()
  }

  /// Each save works, with versions kept or not (the walks that keep a version use an explicit stack).
  @Test(arguments: [VersionPolicy.none, .default])
  func savesAChangeAtTheBottomAndPutsAndRemovesDeepInside(policy: VersionPolicy) async throws {
    let package = try DeepPackage()
    let inner = DeepTree.innerPath(depth: Self.depth)
    let edits: [(String, @Sendable (PackageNode) throws -> Void)] = [
      ("changed\n", { try $0.setFile(at: Self.bottom, contents: Data("changed\n".utf8)) }),
      ("added", { try $0.setFile(at: inner + "/new.txt", contents: Data("new\n".utf8)) }),
      ("removed", { try $0.removeNode(at: inner + "/new.txt") }),
    ]
    try await onSmallStack {
      for (name, edit) in edits {
        let file = try PackageFile(at: FilePath(package.path))
        file.versionPolicy = policy
        try edit(file.root)
        try file.save()
        let after = try PackageNode(contentsOf: FilePath(package.path))
        switch name {
        case "added": #expect(try after.nodeIfPresent(at: inner + "/new.txt") != nil)
        case "removed": #expect(try after.nodeIfPresent(at: inner + "/new.txt") == nil)
        default: #expect(try after.node(at: Self.bottom).contents() == Data(name.utf8))
        }
      }
    }
  }

  /// Issue 35: versions of a deep package are kept (copied at the save, and pending then settled),
  /// read back whole and restored, on a worker-sized stack. `make stress` runs it 1,000 deep
  /// (`DOCPKG_DEEP_TREE_DEPTH`); a debug build takes minutes there, as loading a deep path does.
  @Test func keepsSettlesAndRestoresVersionsOfADeepPackage() async throws {
    let temp = try TemporaryDirectory("deep-versions")
    let path = temp.appending("Deep.pkg")
    let depth = Self.depth
    try DeepTree.make(at: path, depth: depth)
    defer { try? DeepTree.remove(path) }
    let bottom = DeepTree.innerPath(depth: depth) + "/" + DeepTree.fileName
    try await onSmallStack {
      for (index, deferred) in [false, true].enumerated() {
        let file = try PackageFile(at: FilePath(path))
        file.defersVersionCopies = deferred
        try file.root.setFile(at: bottom, contents: Data("v\(index + 2)\n".utf8))
        try file.save()
      }
      let store = try VersionStore(forPackageAt: FilePath(path))
      #expect(store.hasPendingVersions)
      try store.settlePendingVersions()
      let versions = try store.versions()
      #expect(versions.map(\.id) == [1, 2])
      #expect(versions.allSatisfy { $0.unkeptPaths.isEmpty })
      #expect(try store.damagedVersions(thorough: true).isEmpty)
      #expect(try store.tree(of: 2).node(at: bottom).contents() == Data("v2\n".utf8))
      try PackageFile(at: FilePath(path)).restoreVersion(1)
      #expect(try PackageNode(contentsOf: FilePath(path)).node(at: bottom).contents() == Data("bottom\n".utf8))
    }
  }

  @Test func diffsTwoDeepPackages() async throws {
    let old = try DeepPackage("Old.pkg")
    let new = try DeepPackage("New.pkg", in: old.temp, contents: "other\n")
    let changes = try await onSmallStack {
      try PackageNode(contentsOf: FilePath(new.path)).difference(from: PackageNode(contentsOf: FilePath(old.path)))
        .map(\.path)
    }
    #expect(changes == [Self.bottom])
  }

  @Test func keepsAndRestoresVersionsOfADeepPackage() throws {
    let package = try DeepPackage()
    let file = try PackageFile(at: FilePath(package.path))
    try file.root.setFile(at: Self.bottom, contents: Data("v2\n".utf8))
    try file.save()
    let store = try file.versionStore()
    for version in try store.versions() {
      var count = 0
      try store.tree(of: version.id).walk { _, _, _ in
        count += 1
        return true
      }
      #expect(count > Self.depth)
      try file.restoreVersion(version.id)
    }
  }

  @Test func watchesOrRefusesADeepPackage() async throws {
    let package = try DeepPackage()
    do {
      let monitor = try PackageMonitor(watching: FilePath(package.path))
      monitor.stop()
    } catch {
      expectOneLine(error)
    }
  }
}
