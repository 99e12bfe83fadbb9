import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 40: a comparison of two versions of a package read every file both hold (and, at a million files,
/// took over 36 s of CPU to find one change). Unchanged files are one blob of the store on both sides: the
/// comparison costs what differs.
@Suite("PackageDifference of two versions")
struct DifferenceOfVersionsTests {
  /// A package saved three times: versions 2 and 3 differ in `Text.txt` only, same size ("one", "two").
  private func twoVersions(_ temp: TemporaryDirectory) throws -> VersionStore {
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    for text in ["one\n", "two\n", "three\n"] {
      try document.root.setFile(at: "Text.txt", contents: Data(text.utf8))
      try document.save()
    }
    let store = try document.versionStore()
    _ = try store.settlePendingVersions()
    return store
  }

  @Test func readsNoFileBothVersionsShare() throws {
    let temp = try TemporaryDirectory()
    let store = try twoVersions(temp)
    // Index.json is the same blob in both: gone from the store, it is not read (check is what finds it).
    try FileManager.default.removeItem(atPath: store.objectPath(ContentHash.of(Data("{}\n".utf8))).string)
    let old = try store.tree(of: 2)
    let new = try store.tree(of: 3)
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M Text.txt"])
    #expect(DiffTrees.lines(try old.difference(from: new)) == ["M Text.txt"])
    // Text.txt, the same size in both but another blob, was read and compared.
    #expect(try old.node(at: "Text.txt").contents() == Data("one\n".utf8))
    #expect(try new.node(at: "Text.txt").contents() == Data("two\n".utf8))
  }

  @Test func entersNoFolderBothVersionsShare() throws {
    let temp = try TemporaryDirectory()
    let store = try twoVersions(temp)
    // Pages/p1's tree is one object in both versions (as Pages' is): gone from the store, it is not read.
    let address = try #require(try store.treeListedLazily(of: 2).node(at: "Pages").children()["p1"]?.contentAddress)
    try FileManager.default.removeItem(atPath: store.objectPath(String(address.split(separator: "#").last!)).string)
    let old = try store.treeListedLazily(of: 2)
    let new = try store.treeListedLazily(of: 3)
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M Text.txt"])
    // Read whole, the version names the damage.
    #expect(throws: PackageError.self) { try store.tree(of: 2) }
  }
}

/// Two versions of one store are compared by the lines of their trees that differ: an entry both hold
/// unchanged is never parsed. The comparison must say exactly what comparing the two trees listed whole says.
@Suite("PackageDifference of two versions, entries that differ only")
struct DifferenceOfVersionLinesTests {
  /// Seeded changes of every kind over several saves: each pair of versions compared both ways, lazily and
  /// listed whole, with times, renames and patches.
  @Test(arguments: [UInt64(3), 11, 40])
  func comparingTheLinesThatDifferFindsWhatTheWholeTreesShow(seed: UInt64) throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    var random = SplitMix64(seed: seed)
    var files = ["Text.txt", "Index.json", "Images/a.png", "Pages/p1/text.txt", "Pages/p2/text.txt"]
    for save in 0..<6 {
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        try change(document.root, &files, save: save, using: &random)
      }
      try document.save()
    }
    let store = try document.versionStore()
    _ = try store.settlePendingVersions()
    var options = PackageDifference.Options()
    options.comparesModificationTimes = true
    options.includesTextPatches = true
    let ids = try store.versions().map(\.id)
    #expect(ids.count >= 5)
    for old in ids {
      for new in ids where new != old {
        let lazily = try store.treeListedLazily(of: new).difference(
          from: store.treeListedLazily(of: old), options: options)
        let whole = try store.tree(of: new).difference(from: store.tree(of: old), options: options)
        #expect(try json(lazily) == json(whole), "versions \(old) and \(new), seed \(seed)")
      }
    }
  }

  private func json(_ difference: PackageDifference) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(difference), as: UTF8.self)
  }

  /// One change: a file added, rewritten (sometimes at the same size), removed or renamed, a mode or a
  /// time changed, a folder of files added, or a link made.
  private func change(
    _ root: PackageNode, _ files: inout [String], save: Int, using random: inout SplitMix64
  ) throws {
    let path = files.randomElement(using: &random)!
    switch Int.random(in: 0..<8, using: &random) {
    case 0:
      let name = "New\(save)-\(Int.random(in: 0..<100, using: &random)).txt"
      let folder = ["", "Pages/", "Pages/p1/", "Deep/a/b/"].randomElement(using: &random)!
      try root.setFile(at: folder + name, contents: Data("new \(name)\nline\n".utf8))
      files.append(folder + name)
    case 1:
      let size = try root.node(at: path).contents().count
      let same = String(repeating: "x", count: max(size - 1, 0)) + "\n"
      try root.setFile(at: path, contents: Data(Bool.random(using: &random) ? same.utf8 : "changed \(save)\n".utf8))
    case 2 where files.count > 2:
      _ = try root.removeNode(at: path)
      files.removeAll { $0 == path }
    case 3:
      let renamed = "r\(save)-" + (path.split(separator: "/").last.map(String.init) ?? "x")
      guard
        (try? root.node(at: (path.split(separator: "/").dropLast() + [Substring(renamed)]).joined(separator: "/")))
          == nil
      else { return }
      try root.renameNode(at: path, to: renamed)
      files.removeAll { $0 == path }
      files.append((path.split(separator: "/").dropLast() + [Substring(renamed)]).joined(separator: "/"))
    case 4:
      try root.setPermissions(FilePermissions(rawValue: Bool.random(using: &random) ? 0o600 : 0o644), at: path)
    case 5:
      try root.setModificationTime(FileTime(seconds: 1_700_000_000 + Int64(save)), at: path)
    case 6:
      for index in 0..<3 { try root.setFile(at: "Folder\(save)/f\(index).txt", contents: Data("\(index)\n".utf8)) }
      files.append("Folder\(save)/f0.txt")
    default:
      _ = try root.addChild(
        PackageNode(symbolicLinkWithDestination: "Text.txt", preferredName: "link\(save)-\(files.count)"))
    }
  }
}
