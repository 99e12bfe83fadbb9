import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// A pending version (``PackageFile/defersVersionCopies``) across the window between the save and
/// its settle: a root entry the save added or replaced, a hard-link backup of the package, and
/// writes in place. A restored version is always exactly the previous state, or lacks a file the
/// version names as not kept: never other bytes.
@Suite("Pending versions across the window")
struct PendingWindowTests {
  /// Every entry below `path` by relative path: kind, permissions and bytes (or link target).
  func snapshot(_ path: String) throws -> [String: String] {
    var result: [String: String] = [:]
    let manager = FileManager.default
    for relative in try manager.subpathsOfDirectory(atPath: path) {
      let full = path + "/" + relative
      let status = try Syscalls.statusNoFollow(FilePath(full))
      let mode = String(status.permissions.rawValue, radix: 8)
      switch status.kind {
      case .file: result[relative] = "file \(mode) " + (try read(full))
      case .directory: result[relative] = "directory \(mode)"
      case .symlink: result[relative] = "link " + (try manager.destinationOfSymbolicLink(atPath: full))
      case nil: result[relative] = "other"
      }
    }
    return result
  }

  private func deferredDocument(_ package: String) throws -> PackageFile {
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = true
    return document
  }

  @Test func anAddedRootEntryIsNotInThePreviousVersion() throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = try makePackage(in: temp)
    let before = try snapshot(package)
    let root = try info(package).inode
    let document = try deferredDocument(package)
    try document.root.setFile(at: "New.txt", contents: Data("new\n".utf8))
    try document.save()
    #expect(try info(package).inode == root)  // renamed into the live root (RENAME_NOREPLACE)
    let store = try document.versionStore()
    #expect(try store.settlePendingVersions().map(\.unkeptPaths) == [[]])
    #expect(try store.tree(of: 1).nodeIfPresent(at: "New.txt") == nil)
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    try document.restoreVersion(1)
    #expect(try snapshot(package) == before)
  }

  @Test func aReplacedRootEntryIsThePreviousOneInTheVersion() throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = try makePackage(in: temp)
    let before = try snapshot(package)
    let root = try info(package).inode
    let document = try deferredDocument(package)
    _ = try document.root.removeNode(at: "Images")
    try document.root.setFile(at: "Images/c.png", contents: Data("C".utf8))
    try document.save()
    #expect(try info(package).inode == root)  // exchanged alone
    let store = try document.versionStore()
    #expect(try store.settlePendingVersions().map(\.unkeptPaths) == [[]])
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    try document.restoreVersion(1)
    #expect(try snapshot(package) == before)
  }

  /// A package saved once with a change at `changed` (a deferred version pending), then changed in its root by
  /// another program as `outside` says; with the package, its state before the save, and the document.
  private func changedInTheRootAfterASave(_ changed: String, _ outside: String) throws -> (
    temp: TemporaryDirectory, package: String, before: [String: String], document: PackageFile
  ) {
    let temp = try TemporaryDirectory("pending-window")
    let package = try makePackage(in: temp)
    let before = try snapshot(package)
    let document = try deferredDocument(package)
    try document.root.setFile(at: changed, contents: Data("changed\n".utf8))
    try document.save()
    let manager = FileManager.default
    switch outside {
    case "add": try temp.write("Doc.pkg/Sidecar.txt", "made after the save\n")
    case "add a folder": try temp.write("Doc.pkg/Cache/c.bin", "made after the save")
    case "remove": try manager.removeItem(atPath: package + "/Index.json")
    case "rename": try manager.moveItem(atPath: package + "/Index.json", toPath: package + "/Renamed.json")
    default:
      try manager.removeItem(atPath: package + "/Index.json")
      try temp.write("Doc.pkg/Index.json", "{\"made\": \"after\"}\n")
    }
    return (temp, package, before, document)
  }

  /// Another program writing beside the document right after a save, before the settle: the root's times
  /// change as they would for a removal, but every entry it had at the save is still there, so the version
  /// is whole and simply lacks what was made since. An entry removed instead still names the root (its bytes
  /// are nowhere), and one removed and made again at its name is named itself (issue 35, R2-7).
  @Test(arguments: ["Text.txt", "Pages/p1/text.txt"], ["add", "add a folder", "remove", "replace"])
  func anEntryMadeInTheRootAfterASaveIsLeftOutOfItsVersion(_ changed: String, _ outside: String) throws {
    let (temp, package, before, document) = try changedInTheRootAfterASave(changed, outside)
    defer { withExtendedLifetime(temp) {} }  // the folder goes with it
    let store = try document.versionStore()
    let expected = ["add": [], "add a folder": [], "remove": ["./"], "replace": ["Index.json"]][outside]
    #expect(try store.settlePendingVersions().map(\.unkeptPaths) == [expected], "\(outside) after a save of \(changed)")
    #expect(try store.damagedVersions(thorough: true).isEmpty == outside.hasPrefix("add"))
    guard outside.hasPrefix("add") else { return }
    #expect(try store.tree(of: 1).nodeIfPresent(at: "Sidecar.txt") == nil)
    #expect(try store.tree(of: 1).nodeIfPresent(at: "Cache") == nil)
    try document.restoreVersion(1)
    #expect(try snapshot(package) == before)
  }

  /// As above, with another save between the change and the settle (outsider attack 4 on issue 35): the chain of
  /// our renames in the root is broken by the other program's change, which named nothing, so a removed entry was
  /// missing from the earlier version unnamed (`check` ok), and a renamed one was named by its new name. The root's
  /// names at the save decide: a removal or a rename names `./`, an addition nothing, and what was made since is
  /// never in the version.
  @Test(arguments: ["Text.txt", "Pages/p1/text.txt"], ["add", "remove", "rename"])
  func anEntryChangedInTheRootBetweenTwoSavesIsJudgedByTheRootsNames(_ changed: String, _ outside: String) throws {
    let (temp, package, before, _) = try changedInTheRootAfterASave(changed, outside)
    defer { withExtendedLifetime(temp) {} }  // the folder goes with it
    let second = try deferredDocument(package)
    try second.root.setFile(at: changed, contents: Data("second\n".utf8))
    try second.save()
    let store = try second.versionStore()
    let settled = try store.settlePendingVersions().map(\.unkeptPaths)
    #expect(settled.first == (outside == "add" ? [] : ["./"]), "\(outside) between saves of \(changed): \(settled)")
    let first = try store.tree(of: 1)
    #expect(try first.nodeIfPresent(at: "Sidecar.txt") == nil && first.nodeIfPresent(at: "Renamed.json") == nil)
    guard outside == "add" else { return }
    try second.restoreVersion(1)
    #expect(try snapshot(package) == before)
  }

  /// As above, with a restore as the later save (outsider attack 6 on issue 35, H1): the restore moves the whole
  /// root into the store, and the earlier version, read from that root, was not judged by its names: an entry
  /// removed before the restore was missing from it unnamed (`check` ok).
  @Test(arguments: ["Text.txt", "Notes/new.txt"], ["add", "remove", "rename"])
  func anEntryChangedInTheRootBeforeARestoreIsJudgedByTheRootsNames(_ changed: String, _ outside: String) throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    let store = try document.versionStore()
    try document.root.setFile(at: "Text.txt", contents: Data("first\n".utf8))
    try document.save()
    _ = try store.settlePendingVersions()  // version 1, restored below
    let before = try snapshot(package)
    try document.root.setFile(at: changed, contents: Data("changed\n".utf8))
    try document.save()  // version 2, pending
    let manager = FileManager.default
    switch outside {
    case "add": try temp.write("Doc.pkg/Sidecar.txt", "made after the save\n")
    case "remove": try manager.removeItem(atPath: package + "/Index.json")
    default: try manager.moveItem(atPath: package + "/Index.json", toPath: package + "/Renamed.json")
    }
    let restoring = try deferredDocument(package)
    try restoring.restoreVersion(1)  // version 3: the whole root
    let settled = try store.settlePendingVersions().map(\.unkeptPaths)
    #expect(
      settled.first == (outside == "add" ? [] : ["./"]), "\(outside) before a restore, after \(changed): \(settled)")
    #expect(try store.damagedVersions(thorough: true).isEmpty == (outside == "add"))
    guard outside == "add" else { return }
    try restoring.restoreVersion(2)
    #expect(try snapshot(package) == before)
  }

  /// Outsider attack 6 on issue 35 (M2): another program replaced a folder in `sub` after a save, then a second save
  /// removed a file from `sub`, then the other program removed another file there. The first version reads `sub`
  /// from the package; the other program's first change broke the chain of our renames there, which named nothing,
  /// and its entries were judged one by one, which cannot see a removal: `z.txt` was missing from it, unnamed. A
  /// chain another program broke now names the folder.
  @Test func aFolderChangedBetweenTwoSavesIsNamedInTheEarlierVersion() throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = temp.appending("Doc.pkg")
    for (path, text) in [("sub/z.txt", "z"), ("sub/a.txt", "a"), ("sub/d/f", "f"), ("newdir/n", "n")] {
      try temp.write("Doc.pkg/" + path, text + "\n")
    }
    let document = try deferredDocument(package)
    try document.root.setFile(at: "newdir/b", contents: Data("b\n".utf8))
    try document.save()
    try FileManager.default.removeItem(atPath: package + "/sub/d")
    try temp.write("Doc.pkg/sub/d/g", "another program's\n")
    let second = try deferredDocument(package)
    _ = try second.root.removeNode(at: "sub/a.txt")
    try second.save()
    try FileManager.default.removeItem(atPath: package + "/sub/z.txt")
    let settled = try second.versionStore().settlePendingVersions().map(\.unkeptPaths)
    #expect(settled == [["sub/"], ["sub/"]], "\(settled)")
  }

  /// Outsider attack 6 on issue 35, second round (H1): a save outside `sub`, another program removes `sub/t.txt`,
  /// then a save replaces `sub` and another removes an entry from the new `sub`. The first version reads `sub` from
  /// the second save's replaced folder, which was not judged because our saves had renamed in a folder at that path:
  /// but that rename was in the new folder, after the replaced one left. `t.txt` was missing, unnamed (`check` ok).
  @Test func anEntryRemovedBeforeASaveReplacedItsFolderIsNamed() throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = temp.appending("Doc.pkg")
    for path in ["r1.txt", "sub/s.txt", "sub/t.txt", "sub/deep/d.txt"] { try temp.write("Doc.pkg/" + path, path) }
    var document = try deferredDocument(package)
    try document.root.setFile(at: "newdir/y.txt", contents: Data("y\n".utf8))
    try document.save()
    try FileManager.default.removeItem(atPath: package + "/sub/t.txt")
    document = try deferredDocument(package)
    try document.root.setFile(at: "sub/m.txt", contents: Data("m\n".utf8))
    try document.save()
    document = try deferredDocument(package)
    _ = try document.root.removeNode(at: "sub/s.txt")
    try document.save()
    let settled = try document.versionStore().settlePendingVersions().map(\.unkeptPaths)
    #expect(settled.first == ["sub/"], "\(settled)")
  }

  /// Outsider attack 4, second round: a root of more entries than a save lists (``PendingVersion/rootListingLimit``)
  /// fell back to its times, and an entry removed between two saves broke the chain of our renames there, which named
  /// nothing: the earlier version lacked it, unnamed. Such a root is now named whenever our renames do not prove its
  /// times. And an entry a later save of ours adds to the root, after another program added one, was named as not
  /// kept in the earlier versions (the broken chain again), though none of them had it: the root's names say it was
  /// not there.
  @Test(arguments: [true, false])
  func aRootChangedBetweenTwoSavesIsNamedOnlyWhenAnEntryIsGone(bigRoot: Bool) throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = try makePackage(in: temp)
    if bigRoot {
      for index in 0...PendingVersion.rootListingLimit { try temp.write("Doc.pkg/f\(index)", "\(index)") }
    }
    for (turn, path) in ["Text.txt", bigRoot ? "Text.txt" : "Added.txt"].enumerated() {
      let document = try deferredDocument(package)
      try document.root.setFile(at: path, contents: Data("turn \(turn)\n".utf8))
      try document.save()
      if turn == 0 {
        if bigRoot {
          try FileManager.default.removeItem(atPath: package + "/f0")
        } else {
          try temp.write("Doc.pkg/Sidecar.txt", "another program's\n")
        }
      }
    }
    let store = try PackageFile(at: FilePath(package)).versionStore()
    let settled = try store.settlePendingVersions().map(\.unkeptPaths)
    #expect(settled == (bigRoot ? [["./"], []] : [[], []]), "\(settled)")
  }

  /// `cp -al` only adds a link to each file, but that moves its change time as a `chmod` would: the
  /// version cannot know the permissions such a file had at the save, so it names every file and
  /// link the backup linked; the entry the save replaced (already in the store) and the folders
  /// are kept, and a restore gives them exactly (issue 35).
  @Test(arguments: ["Text.txt", "Pages/p1/text.txt", "Notes/new.txt"])
  func aHardLinkBackupInTheWindowNamesWhatItLinked(_ changed: String) throws {
    let temp = try TemporaryDirectory("pending-window")
    let package = try makePackage(in: temp)
    let document = try deferredDocument(package)
    let store = try document.versionStore()
    var states: [[String: String]] = []
    for turn in 1...2 {
      let state = try snapshot(package)
      let linked = state.filter { $0.key != changed && !$0.value.hasPrefix("directory") }.keys.sorted()
      states.append(state.filter { !linked.contains($0.key) })
      try document.root.setFile(at: changed, contents: Data("turn \(turn)\n".utf8))
      try document.save()
      try Shell.run("/bin/cp", ["-al", package, temp.appending("backup-\(turn)")])
      #expect(
        try store.settlePendingVersions().map { $0.unkeptPaths.sorted() } == [linked], "save \(turn) of \(changed)")
    }
    for (index, state) in states.enumerated() {
      try document.restoreVersion(index + 1)
      #expect(try snapshot(package) == state, "version \(index + 1) after a save of \(changed)")
    }
  }

  @Test(arguments: [FileSystemKind.temporaryFolder, .xfs], VersionSafetyTests.writes.map(\.command))
  func aWriteInPlaceAfterABackupIsStillNamed(_ kind: FileSystemKind, _ command: String) throws {
    guard kind == .temporaryFolder || getuid() == 0 else { return }  // mounting an xfs image needs root
    let place = try TestFileSystem(kind)
    guard let root = place.root else { return }
    let package = root + "/W.mydoc"
    for (path, text) in [("Notes.txt", "first notes\n"), ("Other.txt", "other\n"), ("Pages/p.txt", "page\n")] {
      try FileManager.default.createDirectory(
        atPath: (package + "/" + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data(text.utf8).write(to: URL(fileURLWithPath: package + "/" + path))
    }
    let before = try snapshot(package)
    let document = try deferredDocument(package)
    try document.root.setFile(at: "Pages/p.txt", contents: Data("page 2\n".utf8))
    try document.save()
    try Shell.run("/bin/cp", ["-al", package, root + "/backup"])
    try Shell.run("/bin/sh", ["-c", command, "sh", package + "/Notes.txt"])
    let store = try document.versionStore()
    // The backup linked Notes.txt and Other.txt: both are named (see above), the write with them.
    #expect(try store.settlePendingVersions().map(\.unkeptPaths) == [["Notes.txt", "Other.txt"]], "\(kind)")
    #expect(try store.tree(of: 1).nodeIfPresent(at: "Notes.txt") == nil)  // never the new bytes
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    #expect(check.standardOutput.contains("damaged: version 1: Notes.txt: not kept"), "\(check.standardOutput)")
    // The restore gives every kept file its exact previous bytes, and no Notes.txt.
    let restore = try Shell.docpkg(["versions", "restore", package, "1"])
    #expect(restore.status == 0, "\(restore.standardError)")
    var expected = before
    expected["Notes.txt"] = nil
    expected["Other.txt"] = nil
    #expect(try snapshot(package) == expected, "\(kind)")
  }
}
