import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Another program replaces the package while a document saves — `rm -rf P && cp -a Other P`, or
/// `rm -rf P; mv Other P` — after the save's last check and just before its swap (the hook that
/// runs there stands in for the unlucky moment). The save must not put the document's tree over
/// the other package: P stays exactly `Other`, nothing of `Other` goes into the version store, the
/// save fails as for a replaced package (the document is `deleted`), and `save(to:)` keeps every edit.
@Suite("A package replaced during a save")
struct PackageReplacedDuringSaveTests {
  /// What the document changes: the whole root (two root entries), one folder, or one new root entry.
  enum Edits: String, CaseIterable { case root, folder, newRootEntry }

  /// `P.mydoc` (`Text.txt`, `sub0/f0.txt`, `sub1/f1.txt`) and `Other.mydoc` (the same names, other
  /// bytes, and `other-only.txt`).
  private func makePackages(_ temp: TemporaryDirectory) throws -> (package: String, other: String) {
    for (name, text) in [("P.mydoc", "orig"), ("Other.mydoc", "OTHER")] {
      try temp.write("\(name)/Text.txt", text)
      try temp.write("\(name)/sub0/f0.txt", text + "0")
      try temp.write("\(name)/sub1/f1.txt", text + "1")
    }
    try temp.write("Other.mydoc/other-only.txt", "OTHER-only")
    return (temp.appending("P.mydoc"), temp.appending("Other.mydoc"))
  }

  /// Every file below `path` by relative path, with its text.
  private func files(_ path: String) throws -> [String: String] {
    var result: [String: String] = [:]
    for relative in try FileManager.default.subpathsOfDirectory(atPath: path) {
      var isDirectory: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isDirectory)
      if !isDirectory.boolValue { result[relative] = try read(path + "/" + relative) }
    }
    return result
  }

  private func edit(_ edits: Edits, _ root: PackageNode) throws {
    switch edits {
    case .root:
      try root.setFile(at: "Text.txt", contents: Data("mine".utf8))
      try root.setFile(at: "a1.txt", contents: Data("a1".utf8))
    case .folder: try root.setFile(at: "sub0/f0.txt", contents: Data("mine0".utf8))
    case .newRootEntry: try root.setFile(at: "a1.txt", contents: Data("a1".utf8))
    }
  }

  private func expectEdits(_ edits: Edits, at path: String) throws {
    let saved = try files(path)
    switch edits {
    case .root:
      #expect(saved["Text.txt"] == "mine" && saved["a1.txt"] == "a1" && saved["sub0/f0.txt"] == "orig0")
    case .folder: #expect(saved["sub0/f0.txt"] == "mine0" && saved["Text.txt"] == "orig")
    case .newRootEntry: #expect(saved["a1.txt"] == "a1" && saved["Text.txt"] == "orig")
    }
    #expect(saved["other-only.txt"] == nil)
  }

  /// A document on `path` that read the files the edits touch (and one they leave), then made `edits`.
  private func editedDocument(_ path: String, _ edits: Edits) async throws -> Document {
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    _ = try await document.read { root in
      for file in ["Text.txt", "sub0/f0.txt", "sub1/f1.txt"] { _ = try root.node(at: file).contents() }
    }
    try await document.edit { try self.edit(edits, $0) }
    return document
  }

  /// `rm -rf path`, then `other` moved or copied (`cp -a`-like) to `path`.
  private static func replace(_ path: String, with other: String, byMove: Bool) throws {
    try FileManager.default.removeItem(atPath: path)
    if byMove {
      try FileManager.default.moveItem(atPath: other, toPath: path)
    } else {
      try FileManager.default.copyItem(atPath: other, toPath: path)
    }
  }

  /// Expects that no file of the store beside `P.mydoc` in `temp` holds the other package's bytes.
  private func expectNothingOfTheOtherInTheStore(_ temp: TemporaryDirectory) {
    let store = temp.appending(".P.mydoc.docpkg-versions")
    let stored = (try? FileManager.default.subpathsOfDirectory(atPath: store)) ?? []
    let strangers = stored.filter { (try? read(store + "/" + $0))?.contains("OTHER") == true }
    #expect(strangers.isEmpty, "the version store holds the other package's \(strangers)")
  }

  @Test(arguments: Edits.allCases, [false, true])
  func aSaveNeverCommitsOverThePackageThatReplacedIt(edits: Edits, byMove: Bool) async throws {
    let temp = try TemporaryDirectory()
    let (path, other) = try makePackages(temp)
    let expected = try files(other)
    let document = try await editedDocument(path, edits)
    await document.setWillReplacePreviousState { _ in try Self.replace(path, with: other, byMove: byMove) }
    await #expect(throws: PackageError.self) { try await document.save() }
    await document.setWillReplacePreviousState(nil)
    #expect(try files(path) == expected)
    #expect(await document.state.contains(.deleted))
    expectNothingOfTheOtherInTheStore(temp)
    let recovered = temp.appending("Recovered.mydoc")
    let result = try await document.save(to: FilePath(recovered))
    #expect(result.uncarriedPaths.isEmpty)
    try expectEdits(edits, at: recovered)
    #expect(try files(path) == expected)
    try await document.close()
  }

  /// The stranger put in place after the save's last check, just before its rename (the hook stands
  /// in for the unlucky instant): the save goes into the stranger's tree, the check right after its
  /// swap finds it so, and the swap is undone at once. P is left exactly as the other program made it,
  /// what the save built is kept at `.P.mydoc.docpkg-unsaved` (named in the one-line error), nothing
  /// of the stranger goes into the version store, and the document keeps its edits unsaved.
  @Test(arguments: Edits.allCases, [false, true])
  func aStrangerPutInPlaceJustBeforeTheSwapIsSwappedBack(edits: Edits, byMove: Bool) async throws {
    let temp = try TemporaryDirectory()
    let (path, other) = try makePackages(temp)
    let expected = try files(other)
    let document = try await editedDocument(path, edits)
    await document.setWillSwapIn { try? Self.replace(path, with: other, byMove: byMove) }
    let kept = temp.appending(".P.mydoc.docpkg-unsaved")
    let error = await #expect(throws: PackageError.self) { try await document.save() }
    await document.setWillSwapIn(nil)
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains("replaced by another directory") && message.contains(kept), "\(message)")
    #expect(!message.contains("\n"))
    #expect(try files(path) == expected)
    #expect(await document.hasUnsavedChanges)
    switch edits {
    case .root: try expectEdits(.root, at: kept)
    case .folder: #expect(try read(kept) == "mine0")  // the changed file: the part the save built
    case .newRootEntry: #expect(try read(kept) == "a1")
    }
    expectNothingOfTheOtherInTheStore(temp)
    let recovered = temp.appending("Recovered.mydoc")
    #expect(try await document.save(to: FilePath(recovered)).uncarriedPaths.isEmpty)
    try expectEdits(edits, at: recovered)
    try await document.close()
  }

  /// The package moved to `R.mydoc` and the other put at its name, just before the swap (`mv P R &&
  /// mv Other P`): the save swaps back, follows the package and saves there. What it built the first
  /// time held nothing the moved package and the document do not, so nothing is left beside the
  /// other package for the user to find one day (a `.P.mydoc.docpkg-unsaved` no error named).
  @Test(arguments: Edits.allCases)
  func aSaveThatMetAStrangerFollowsTheMovedPackageAndLeavesNothingBehind(edits: Edits) async throws {
    let temp = try TemporaryDirectory()
    let (path, other) = try makePackages(temp)
    let expected = try files(other)
    let moved = temp.appending("R.mydoc")
    let document = try await editedDocument(path, edits)
    await document.setWillSwapIn {
      guard FileManager.default.fileExists(atPath: other) else { return }  // once
      try? FileManager.default.moveItem(atPath: path, toPath: moved)
      try? FileManager.default.moveItem(atPath: other, toPath: path)
    }
    try await document.save()
    await document.setWillSwapIn(nil)
    #expect(await document.path == FilePath(moved))
    #expect(!(await document.hasUnsavedChanges))
    try expectEdits(edits, at: moved)
    #expect(try files(path) == expected)
    let left = try FileManager.default.contentsOfDirectory(atPath: temp.path).filter { $0.contains("docpkg-unsaved") }
    #expect(left.isEmpty, "left beside the other package: \(left)")
    expectNothingOfTheOtherInTheStore(temp)
    try await document.close()
  }

  /// The same with versions off (`--versions none`): the save is guarded all the same.
  @Test func aStrangerPutInPlaceJustBeforeTheSwapIsSwappedBackWithVersionsOff() async throws {
    let temp = try TemporaryDirectory()
    let (path, other) = try makePackages(temp)
    let expected = try files(other)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    await document.setVersionPolicy(.none)
    try await document.edit { try self.edit(.folder, $0) }
    await document.setWillSwapIn { try? Self.replace(path, with: other, byMove: true) }
    await #expect(throws: PackageError.self) { try await document.save() }
    #expect(try files(path) == expected)
    #expect(try read(temp.appending(".P.mydoc.docpkg-unsaved")) == "mine0")
    #expect(await document.hasUnsavedChanges)
    try await document.close(saving: false)
  }

  /// `rm -rf P && cp -a Other P` between a load and its save, where the new root gets the loaded
  /// root's inode number back (ext4 gives freed numbers again at once) and `cp -a` keeps the times:
  /// by device and inode alone, and by the times the outside-change check compares, the stranger
  /// is the package. The save must still not go into it. Tried until the file system gives the
  /// numbers back (a few rounds on ext4).
  @Test func aReplacementGivenTheLoadedRootsInodeNumberIsNotSavedInto() throws {
    let temp = try TemporaryDirectory()
    let path = temp.appending("P.mydoc")
    let other = temp.appending("Other.mydoc")
    var reused = 0
    for _ in 0..<40 where reused < 3 {
      try? FileManager.default.removeItem(atPath: path)
      try? FileManager.default.removeItem(atPath: other)
      try temp.write("P.mydoc/Text.txt", "orig!")
      // The other package: a copy with other bytes of the same size and the same times.
      try Shell.run("/bin/cp", ["-a", path, other])
      try temp.write("Other.mydoc/Text.txt", "OTHER")
      try Shell.run("/usr/bin/touch", ["-r", path + "/Text.txt", other + "/Text.txt"])
      let file = try PackageFile(at: FilePath(path))
      file.versionPolicy = .none
      _ = try file.root.node(at: "Text.txt")
      let before = try [path, path + "/Text.txt"].map { try Syscalls.statusNoFollow(FilePath($0)).inode }
      try FileManager.default.removeItem(atPath: path)
      try Shell.run("/bin/cp", ["-a", other, path])
      let after = try [path, path + "/Text.txt"].map { try Syscalls.statusNoFollow(FilePath($0)).inode }
      guard before == after else { continue }
      reused += 1
      try file.root.setFile(at: "Text.txt", contents: Data("mine!".utf8))
      #expect(throws: PackageError.self) { try file.save() }
      #expect(try read(path + "/Text.txt") == "OTHER")
    }
    // A file system that never gives a number again (tmpfs counts up) cannot meet the case at all.
    let givesNumbersAgain = try Self.givesInodeNumbersAgain(in: temp)
    #expect(reused > 0 || !givesNumbersAgain, "the numbers never came back: nothing was tried")
  }

  /// Whether a directory made right after another was removed gets its inode number (ext4 does).
  private static func givesInodeNumbersAgain(in temp: TemporaryDirectory) throws -> Bool {
    var numbers: [UInt64] = []
    for name in ["probe-a", "probe-b"] {
      let path = try temp.makeDirectory(name)
      numbers.append(try Syscalls.statusNoFollow(FilePath(path)).inode)
      try FileManager.default.removeItem(atPath: path)
    }
    return numbers[0] == numbers[1]
  }

  /// F2 of the attack: a file the document saved itself vanishes from the package behind its back
  /// (here removed; in the attack, the package was replaced unnoticed). `save(to:)` still writes
  /// what the document holds, naming what it could not carry, and never fails as a whole.
  @Test func saveToCarriesTheDocumentWhenAFileItSavedVanished() async throws {
    let temp = try TemporaryDirectory()
    let (path, _) = try makePackages(temp)
    let document = try await Document(contentsOf: FilePath(path), options: .unwatched)
    try await document.edit { try $0.setFile(at: "a1.txt", contents: Data("a1".utf8)) }
    try await document.save()
    try await document.edit {
      try $0.setFile(at: "a2.txt", contents: Data("a2".utf8))
      try $0.setFile(at: "Text.txt", contents: Data("t2".utf8))
    }
    try FileManager.default.removeItem(atPath: path + "/a1.txt")
    let recovered = temp.appending("Recovered.mydoc")
    let result = try await document.save(to: FilePath(recovered))
    let saved = try files(recovered)
    #expect(saved["a2.txt"] == "a2" && saved["Text.txt"] == "t2")
    #expect(saved["a1.txt"] == "a1" || result.uncarriedPaths == ["a1.txt"])
    try await document.close()
  }
}
