import Foundation
import TestSupport
import Testing

/// Issue 35: what another program does to a package between a save and its settle never changes
/// the version silently, and entries it only added are not the version's. Each test runs the
/// commands a user would, with the detached settler held off so that the window is certain.
@Suite("docpkg versions: the window between a save and its settle")
struct PendingWindowCommandTests {
  static let noBackground = ["DOCPKG_NO_BACKGROUND_SETTLE": "1"]

  /// Runs `docpkg ARGUMENTS` with `input`, expecting exit 0.
  @discardableResult
  static func run(_ arguments: [String], _ input: String? = nil) throws -> Shell.Output {
    let result = try Shell.docpkg(arguments, input: input.map { Data($0.utf8) }, environment: noBackground)
    #expect(result.status == 0, "docpkg \(arguments.joined(separator: " ")): \(result.standardError)")
    return result
  }

  static func setMode(_ mode: Int, _ path: String) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }

  /// The lines of `docpkg check` that name version `id` as damaged, and its exit status.
  static func damage(_ package: String, version id: Int) throws -> (lines: [String], status: Int32) {
    let check = try Shell.docpkg(["check", package], environment: noBackground)
    let lines = check.standardOutput.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("damaged: version \(id): ")
    }
    return (lines, check.status)
  }

  /// The version's entries as `versions show` lists them (kind, mode, size and name; no tree art).
  static func show(_ package: String, version id: Int) throws -> [String] {
    let lines = try run(["versions", "show", package, String(id)]).standardOutput.split(separator: "\n")
    return lines.filter { $0.hasPrefix("file") || $0.hasPrefix("directory") || $0.hasPrefix("symlink") }.map {
      String(
        $0.filter { !"│├└─".contains($0) }.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
      )
    }
  }

  /// A `chmod` after a save, before its settle: the version recorded the new mode, and check said ok.
  @Test func aModeChangedInTheWindowIsNamedNotRecorded() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/secret.txt"], "s\n")
    try Self.setMode(0o600, package + "/e/secret.txt")
    try Self.run(["put", package, "d/a.txt"], "b\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/a.txt"], "c\n")  // version 4: the state with secret.txt 0600
    try Self.setMode(0o644, package + "/e/secret.txt")  // another program, before the settle
    try Self.run(["versions", "settle", package])
    let entries = try Self.show(package, version: 4)
    #expect(!entries.contains { $0.hasSuffix(" secret.txt") && $0.contains("0644") }, "\(entries)")
    let (lines, status) = try Self.damage(package, version: 4)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 4: e/secret.txt: not kept "], "\(lines)")
    #expect(try Self.show(package, version: 3).contains("file 0600 2 secret.txt"))
    // `versions list` shows it and fails as `check` does.
    let list = try Shell.docpkg(["versions", "list", package], environment: Self.noBackground)
    #expect(list.status == 1)
    #expect(list.standardOutput.contains("saved (1 not kept)"), "\(list.standardOutput)")
    #expect(list.standardError == "docpkg: error: 1 of 4 versions damaged (4) in '\(package)'\n")
  }

  /// The same `chmod` of a file whose folder the save replaced: the replaced copy shares the
  /// package file's inode, so the mode changes there too.
  @Test func aModeChangedInTheWindowIsNamedInAReplacedFolder() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/secret.txt"], "s\n")
    try Self.run(["put", package, "e/other.txt"], "o\n")
    try Self.setMode(0o600, package + "/e/secret.txt")
    try Self.run(["versions", "settle", package])
    try Self.run(["rm", package, "e/other.txt"])  // replaces e/, linking secret.txt into the new one
    try Self.setMode(0o644, package + "/e/secret.txt")
    try Self.run(["versions", "settle", package])
    let entries = try Self.show(package, version: 4)
    #expect(!entries.contains { $0.hasSuffix(" secret.txt") && $0.contains("0644") }, "\(entries)")
    #expect(entries.contains("file 0644 2 other.txt"), "\(entries)")
    let (lines, status) = try Self.damage(package, version: 4)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 4: e/secret.txt: not kept "], "\(lines)")
  }

  /// A folder made by another program after a save: the version never holds it, empty or not.
  @Test func aFolderMadeInTheWindowIsNotInTheVersion() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/a.txt"], "a\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "s1/b.txt"], "1\n")
    try FileManager.default.createDirectory(atPath: package + "/hand1", withIntermediateDirectories: false)
    try Data("h\n".utf8).write(to: URL(fileURLWithPath: package + "/hand1/f"))
    try Self.run(["versions", "settle", package])
    #expect(
      try Self.show(package, version: 3) == [
        "directory 0755 - P.mydoc/", "directory 0755 - d/", "file 0644 2 a.txt", "directory 0755 - e/",
        "file 0644 2 a.txt",
      ])
    let (lines, status) = try Self.damage(package, version: 3)
    // The root's entries changed after the save, but each name it had then is still there: nothing was removed,
    // so the version is whole (the root was named before its names were kept with each save: R2-7 of issue 35).
    #expect(lines.isEmpty && status == 0, "\(lines)")
  }

  /// The user renames the document between its saves and their settle (a file manager's rename): the move sets
  /// the package folder's change time, which must not name the root in every pending version (it did, 3 of 3,
  /// once a change time after T named a folder).
  @Test func aPackageRenamedBeforeTheSettleKeepsEveryVersionWhole() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("Q.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "d/a.txt"], "b\n")
    try Self.run(["put", package, "e.txt"], "c\n")
    let renamed = temp.appending("R.mydoc")
    try FileManager.default.moveItem(atPath: package, toPath: renamed)
    try Self.run(["versions", "settle", renamed])
    for id in 1...3 { #expect(try Self.damage(renamed, version: id).lines.isEmpty, "version \(id)") }
    #expect(
      try Self.show(renamed, version: 2) == ["directory 0755 - R.mydoc/", "directory 0755 - d/", "file 0644 2 a.txt"])
  }

  /// Outsider attack: a root entry removed, then another save before the settle, and the second version kept
  /// nothing (its files "not kept", 8 of 8): settling the first removed its replaced tree (the whole root), which
  /// moved the change times of the files the package still links, and the note of that said "%25", not the root.
  @Test func aRootEntryRemovedThenAnotherSaveKeepsBothVersionsWhole() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    _ = try temp.write("P.mydoc/a.txt", "hello\n")
    _ = try temp.write("P.mydoc/d/b.txt", "bbb\n")
    _ = try temp.write("P.mydoc/r.txt", "root\n")
    try Self.run(["rm", package, "r.txt"])
    try Self.run(["put", package, "a.txt"], "new\n")
    try Self.run(["versions", "settle", package])
    for id in 1...2 { #expect(try Self.damage(package, version: id).lines.isEmpty, "version \(id)") }
    #expect(
      try Self.show(package, version: 2) == [
        "directory 0755 - P.mydoc/", "file 0644 6 a.txt", "directory 0755 - d/", "file 0644 4 b.txt",
      ])
  }

  /// A file made by another program after a save, in a folder the save did not touch: the file is
  /// not the version's and is not named; the folder is (an entry removed meanwhile would not show),
  /// and then keeps nothing.
  @Test func aFileMadeInTheWindowIsNotNamed() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/a.txt"], "a\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/a.txt"], "1\n")
    try Data("h\n".utf8).write(to: URL(fileURLWithPath: package + "/e/hand1.txt"))
    try Self.run(["versions", "settle", package])
    // e/ is named, so nothing under its name is kept (it could as well have been renamed there).
    #expect(
      try Self.show(package, version: 3) == ["directory 0755 - P.mydoc/", "directory 0755 - d/", "file 0644 2 a.txt"])
    let (lines, _) = try Self.damage(package, version: 3)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 3: e/: not kept "], "\(lines)")
  }

  /// A file removed by another program after a save from the folder the save renamed in: the
  /// version lacked it and check said ok.
  @Test func aFileRemovedInTheWindowBesideTheSavedOneIsNamed() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "d/b.txt"], "b\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/a.txt"], "1\n")
    try FileManager.default.removeItem(atPath: package + "/d/b.txt")
    try Self.run(["versions", "settle", package])
    let (lines, status) = try Self.damage(package, version: 3)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 3: d/: not kept "], "\(lines)")
  }

  /// Three saves before one settle, the first two rebuilding a folder (whose files they link):
  /// settling the first removes its replaced folder, which unlinks the other link of files the
  /// package still holds; the next versions must not take that for another program's change.
  @Test func savesSettledTogetherNameNothing() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "a/x/f0.txt", "--create"], "0\n")
    for path in ["a/x/f1.txt", "b/y/f0.txt", "b/y/f1.txt", "root0.txt"] { try Self.run(["put", package, path], "1\n") }
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "a/x/new.txt"], "new\n")
    try Self.run(["rm", package, "b/y/f0.txt"])
    try Self.run(["put", package, "root1.txt"], "new\n")
    try Self.run(["versions", "settle", package])
    let check = try Shell.docpkg(["check", package], environment: Self.noBackground)
    #expect(check.status == 0, "\(check.standardOutput)")
    #expect(try Self.show(package, version: 7).contains("file 0644 2 f0.txt"))
  }

  /// Writes `text` over the start of the file at `path` in place (`dd conv=notrunc`) and sets its
  /// modification time back to what it was (`touch -d`): only its change time tells.
  static func writeInPlaceKeepingTime(_ path: String, _ text: String) throws {
    let script = #"t=$(stat -c %y "$1"); printf %s "$2" | dd of="$1" conv=notrunc status=none; touch -d "$t" "$1""#
    try Shell.run("/bin/sh", ["-c", script, "sh", path, text])
  }

  /// Outsider attack (3 of 3): a file written in place with its time set back after a save, then a second save
  /// that rebuilds its folder before the settle: the second save's own hard link moved the file's change time,
  /// which hid the write, and version 3 held the new bytes while check said ok.
  @Test(arguments: ["e/x.txt", "e/sub/x.txt"])
  func aWriteHiddenByTheNextSavesLinkIsNamed(_ path: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, path], "xxxx\n")
    try Self.run(["put", package, "e/other.txt"], "o\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/a.txt"], "b\n")  // version 4: the state with x.txt = xxxx
    try Self.writeInPlaceKeepingTime(package + "/" + path, "YYYY")
    try Self.run(["rm", package, "e/other.txt"])  // version 5: rebuilds e/, linking x.txt into the new one
    try Self.run(["versions", "settle", package])
    let (lines, status) = try Self.damage(package, version: 4)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 4: \(path): not kept "], "\(lines)")
    #expect(try Self.damage(package, version: 5).lines.isEmpty)
    let shown = try Shell.docpkg(["versions", "show", package, "5", path], environment: Self.noBackground)
    #expect(shown.standardOutput == "YYYY\n", "\(shown.standardError)")
  }

  /// The same with a `chmod` of the file, or of its folder, before the save that rebuilds the folder above.
  @Test(arguments: ["e/secret.txt", "e/sub"])
  func aModeChangeHiddenByTheNextSaveIsNamed(_ path: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/secret.txt"], "s\n")
    try Self.run(["put", package, "e/sub/s.txt"], "s\n")
    try Self.run(["put", package, "e/other.txt"], "o\n")
    try Self.setMode(0o700, package + "/" + path)
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/a.txt"], "b\n")  // version 5: the state with the mode 0700
    try Self.setMode(0o755, package + "/" + path)
    try Self.run(["rm", package, "e/other.txt"])  // version 6: rebuilds e/
    try Self.run(["versions", "settle", package])
    let (lines, status) = try Self.damage(package, version: 5)
    #expect(status == 1)
    let named = path.hasSuffix("sub") ? path + "/" : path
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 5: \(named): not kept "], "\(lines)")
    let entries = try Self.show(package, version: 5)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    #expect(!entries.contains { $0.hasSuffix(" " + name) || $0.hasSuffix(" " + name + "/") }, "\(entries)")
    #expect(entries.contains("file 0644 2 other.txt"), "\(entries)")
  }

  /// The entry a save replaces is moved into the store by a rename, which moves its change time as well: a
  /// write in place with its time set back, or a `chmod`, before that save stays named in the version before.
  @Test(arguments: ["write", "chmod"])
  func aChangeHiddenByTheNextSavesRenameIsNamed(_ change: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/x.txt"], "xxxx\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/a.txt"], "b\n")  // version 3
    if change == "write" {
      try Self.writeInPlaceKeepingTime(package + "/e/x.txt", "YYYY")
    } else {
      try Self.setMode(0o600, package + "/e/x.txt")
    }
    try Self.run(["put", package, "e/x.txt"], "zzzz\n")  // version 4: x.txt moved into the store
    try Self.run(["versions", "settle", package])
    let (lines, status) = try Self.damage(package, version: 3)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 3: e/x.txt: not kept "], "\(lines)")
    #expect(try Self.damage(package, version: 4).lines.isEmpty)
  }

  /// Outsider attack: a folder renamed in the window (`mv d/e d/f`), moved in from outside, or `chmod`ed was named
  /// `d/f/: not kept` while its files were in the version under the new name (or with the new mode), and a
  /// restore brought them back without a word. A folder named keeps nothing under its name.
  @Test(arguments: ["rename", "move in", "chmod"])
  func aFolderNamedKeepsNothing(_ change: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "a.txt", "--create"], "a\n")
    try Self.run(["put", package, "d/e/x.txt"], "x\n")
    try Self.run(["put", package, "d/g/y.txt"], "y\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "a.txt"], "b\n")  // version 4
    let named: String, gone: [String]
    switch change {
    case "rename":
      try FileManager.default.moveItem(atPath: package + "/d/e", toPath: package + "/d/f")
      (named, gone) = ("d/", ["x.txt", "y.txt"])
    case "move in":
      _ = try temp.write("outside/f/z.txt", "z\n")
      try FileManager.default.moveItem(atPath: temp.appending("outside/f"), toPath: package + "/d/g/f")
      (named, gone) = ("d/g/", ["y.txt", "z.txt"])
    default:
      try Self.setMode(0o700, package + "/d/e")
      (named, gone) = ("d/e/", ["x.txt", "0700"])
    }
    try Self.run(["versions", "settle", package])
    let (lines, status) = try Self.damage(package, version: 4)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 4: \(named): not kept "], "\(lines)")
    let entries = try Self.show(package, version: 4)
    #expect(entries.contains("file 0644 2 a.txt"), "\(entries)")
    #expect(!entries.contains { line in gone.contains { line.contains($0) } }, "\(entries)")
    // The restore brings back nothing under the name named.
    try Self.run(["versions", "restore", package, "4"])
    let restored = try FileManager.default.subpathsOfDirectory(atPath: package).filter { !$0.hasPrefix(".") }
    #expect(!restored.contains { $0.hasPrefix(String(named.dropLast())) }, "\(restored)")
    #expect(try String(contentsOfFile: package + "/a.txt", encoding: .utf8) == "a\n")
  }

  /// Makes (or retargets) the symbolic link at `path` to `target` as `ln -sfn` does; with `keepingTime`, sets the
  /// link's own modification time back to what it was (`touch -h -d`): only its change time tells.
  static func link(_ path: String, to target: String, keepingTime: Bool = false) throws {
    let script =
      keepingTime
      ? #"t=$(stat -c %y "$1"); ln -sfn "$2" "$1"; touch -h -d "$t" "$1""# : #"ln -sfn "$2" "$1""#
    try Shell.run("/bin/sh", ["-c", script, "sh", path, target])
  }

  /// Issue 35: a symbolic link retargeted by another program (`ln -sfn`, with or without its time set back) between
  /// a save and its settle, in the root or in a folder: the version never shows the new target, and `check` names it.
  @Test(arguments: [("l", false), ("l", true), ("d/l", false), ("d/l", true)])
  func aLinkRetargetedInTheWindowIsNamed(_ path: String, keepingTime: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("L.mydoc")
    try Self.run(["put", package, "a.txt", "--create"], "a\n")
    try Self.run(["put", package, "d/x.txt"], "x\n")
    try Self.link(package + "/" + path, to: "old-target")
    try Self.run(["put", package, "d/x.txt"], "y\n")  // version 3: the link to old-target
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "a.txt"], "b\n")  // version 4: the link to old-target
    try Self.link(package + "/" + path, to: "NEW-target", keepingTime: keepingTime)
    try Self.run(["versions", "settle", package])
    let shown = try Self.run(["versions", "show", package, "4"]).standardOutput
    #expect(!shown.contains("NEW-target"), "\(shown)")
    let (lines, status) = try Self.damage(package, version: 4)
    #expect(status == 1)
    // `ln -sfn` renames a new link over the name: in the root, the link is named (the root had every name it has);
    // in a folder, the folder.
    let named = path == "l" ? ["l"] : ["d/"]
    #expect(lines.map { $0.prefix { $0 != "(" } } == named.map { "damaged: version 4: \($0): not kept " }, "\(lines)")
    #expect(try Self.run(["versions", "show", package, "3"]).standardOutput.contains("old-target"))
  }

  /// The same link retargeted before a save that rebuilds its folder (its old folder then read from the store).
  @Test(arguments: [false, true])
  func aLinkRetargetedBeforeTheNextSaveRebuildsItsFolderIsNamed(_ keepingTime: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("L.mydoc")
    try Self.run(["put", package, "a.txt", "--create"], "a\n")
    try Self.run(["put", package, "e/other.txt"], "o\n")
    try Self.link(package + "/e/l", to: "old-target")
    try Self.run(["put", package, "e/x.txt"], "x\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "a.txt"], "b\n")  // version 4: the link to old-target
    try Self.link(package + "/e/l", to: "NEW-target", keepingTime: keepingTime)
    try Self.run(["put", package, "e/sub/new.txt"], "n\n")  // version 5: adds a folder to e/, so rebuilds e/
    try Self.run(["versions", "settle", package])
    let shown = try Self.run(["versions", "show", package, "4"]).standardOutput
    #expect(!shown.contains("NEW-target"), "\(shown)")
    let (lines, status) = try Self.damage(package, version: 4)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 4: e/: not kept "], "\(lines)")
    #expect(try Self.run(["versions", "show", package, "5"]).standardOutput.contains("NEW-target"))
  }

  /// Outsider attack: a folder holding `é.txt` twice (NFC and NFD spellings, made by another program) that the
  /// save did not touch: the version kept both, and then could not be shown or restored ("two entries have one
  /// name"). The library reads them as one name (a save or `rm` in that folder refuses them): the version keeps
  /// neither and names the name.
  @Test func twoSpellingsOfOneNameAreNamedNotKept() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("N.mydoc")
    try Self.run(["put", package, "a.txt", "--create"], "a\n")
    try Self.run(["put", package, "d/b.txt"], "b\n")
    try Self.run(["versions", "settle", package])
    let script = #"printf 1 > "$1/d/$(printf '\303\251').txt"; printf 2 > "$1/d/e$(printf '\314\201').txt""#
    try Shell.run("/bin/sh", ["-c", script, "sh", package])
    try Self.run(["put", package, "a.txt"], "c\n")  // version 3, which holds both spellings
    try Self.run(["versions", "settle", package])
    #expect(
      try Self.show(package, version: 3) == [
        "directory 0755 - N.mydoc/", "file 0644 2 a.txt", "directory 0755 - d/", "file 0644 2 b.txt",
      ])
    #expect(try Self.run(["cat", package + "@3", "d/b.txt"]).standardOutput == "b\n")
    // `check` refuses the package's folder as a save would; once one of them is renamed, it names the version's.
    let refused = try Shell.docpkg(["check", package], environment: Self.noBackground)
    #expect(refused.status == 1)
    #expect(refused.standardError.contains("two entries are one name in different Unicode normalizations"))
    try Shell.run("/bin/sh", ["-c", #"mv "$1/d/e$(printf '\314\201').txt" "$1/d/other.txt""#, "sh", package])
    let (lines, status) = try Self.damage(package, version: 3)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 3: d/\u{E9}.txt: not kept "], "\(lines)")
  }

  /// The `unkeptPaths` of each version, by id, as `versions list --json` gives them (which exits 1 when any
  /// version has entries not kept, 0 otherwise).
  static func unkept(_ package: String) throws -> [Int: [String]] {
    let listing = try Shell.docpkg(["versions", "list", package, "--json"], environment: noBackground)
    let versions =
      try JSONSerialization.jsonObject(with: Data(listing.standardOutput.utf8)) as? [[String: Any]] ?? []
    var unkept: [Int: [String]] = [:]
    for version in versions {
      if let id = version["id"] as? Int { unkept[id] = version["unkeptPaths"] as? [String] ?? [] }
    }
    let damaged = unkept.values.contains { !$0.isEmpty }
    #expect(listing.status == (damaged ? 1 : 0), "versions list: \(listing.standardError)")
    return unkept
  }

  /// Outsider attack: two or three saves in `d/e/` left pending versions, then another program changed
  /// `d/e/f/x.txt`, which no save touched, in a way that moves only its change time. The first version named it;
  /// the later ones held the new mode or bytes as `saved` with nothing named, because removing the settled first
  /// version's replaced folder unlinked x.txt's other name and the walk took the `chmod` for that unlink.
  @Test(arguments: [2, 3], ["chmod", "write in place, time set back"])
  func aChangeBeforeAnEarlierSettleIsNamedInEveryPendingVersion(saves: Int, change: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    let file = package + "/d/e/f/x.txt"
    try Self.run(["put", package, "d/e/f/x.txt", "--create"], "x\n")
    try Self.run(["versions", "settle", package])
    for save in 1...saves { try Self.run(["put", package, "d/e/new\(save).txt"], "n\(save)\n") }
    if change == "chmod" {
      try Self.setMode(0o600, file)
    } else {
      let time = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate]
      let handle = try #require(FileHandle(forWritingAtPath: file))
      try handle.write(contentsOf: Data("Q".utf8))
      try handle.close()
      try FileManager.default.setAttributes([.modificationDate: try #require(time as? Date)], ofItemAtPath: file)
    }
    try Self.run(["versions", "settle", package])
    let unkept = try Self.unkept(package)
    for id in 2...(saves + 1) {
      #expect(unkept[id] == ["d/e/f/x.txt"], "version \(id): \(unkept)")
      let (lines, status) = try Self.damage(package, version: id)
      #expect(status == 1)
      #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version \(id): d/e/f/x.txt: not kept "], "\(lines)")
    }
    // With the first of them removed, check still names the others.
    try Self.run(["versions", "remove", package, "2"])
    #expect(try Self.damage(package, version: 3).status == 1)
  }

  /// A restore replaces the whole package and writes new bytes for a file whose content differs, without linking
  /// it: the old file moves into the store unlinked, with the change time of a `chmod` made before the restore.
  /// Taking every change before the restore's capture for its links, the walk kept the new mode as version 3's.
  /// With `d/y.txt` saved instead of `a.txt`, the save of version 3 rebuilt `d/` and linked x.txt into it: the old
  /// file then has two names (that save's replaced folder and the restore's), yet the restore linked neither.
  @Test(arguments: ["a.txt", "d/y.txt"]) func aModeChangedBeforeARestoreThatWroteTheFileIsNamed(saved: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/x.txt", "--create"], "1\n")
    try Self.run(["put", package, "d/x.txt"], "2\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, saved], "a\n")  // version 3: x.txt holds 2, mode 0644
    try Self.setMode(0o600, package + "/d/x.txt")
    try Self.run(["versions", "restore", package, "2"])  // x.txt written again with 1
    try Self.run(["versions", "settle", package])
    #expect(try Self.unkept(package)[3] == ["d/x.txt"])
    let (lines, status) = try Self.damage(package, version: 3)
    #expect(status == 1)
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 3: d/x.txt: not kept "], "\(lines)")
  }

  /// Random outsider run (seed 4): a save rebuilt `d/` (linking x.txt), a root save followed, then a `chmod` and a
  /// restore that wrote x.txt anew. Settling the first version unlinked its replaced folder's name of x.txt, and the
  /// second version took the `chmod` for that unlink, bounded by the restore's capture (which linked nothing).
  @Test func aModeChangedBeforeARestoreIsNamedAfterAnEarlierSettleUnlinkedTheFile() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Self.run(["put", package, "d/x.txt", "--create"], "1\n")
    try Self.run(["put", package, "d/x.txt"], "2\n")
    try Self.run(["versions", "settle", package])
    try Self.run(["put", package, "d/y.txt"], "y\n")
    try Self.run(["put", package, "a.txt"], "a\n")
    try Self.setMode(0o600, package + "/d/x.txt")
    try Self.run(["versions", "restore", package, "2"])
    try Self.run(["versions", "settle", package])
    let unkept = try Self.unkept(package)
    #expect(unkept[3] == ["d/x.txt"] && unkept[4] == ["d/x.txt"], "\(unkept)")
  }
}
