import Foundation
import TestSupport
import Testing

/// Names the file system cannot hold, on real exFAT and FAT mounts.
///
/// exFAT (exfat-fuse) and FAT (fusefat), as `Scripts/filesystems.sh start` mounts them (`eval "$(Scripts/filesystems.sh env)"` sets
/// `DOCPKG_FS_EXFAT` and `DOCPKG_FS_FAT`). Two entries differing only in case, and names the file
/// system refuses, are refused by `put`, `unpack` and `versions restore` before anything is
/// written: one line, exit 1, and the folder exactly as it was (no temporary, no probe left).
///
/// Others use the mounts at the same time: each test works in a folder of its own, and removes only that.
@Suite(
  "names on FAT and exFAT mounts",
  .enabled(if: !NamesMount.all.isEmpty, "set DOCPKG_FS_EXFAT or DOCPKG_FS_FAT (Scripts/filesystems.sh)"))
struct FileSystemNamesCommandTests {
  typealias Mount = NamesMount
  static let mounts = NamesMount.all

  /// A uniquely named folder of this test's own on a mount, removed (only it) when dropped.
  final class MountFolder {
    let path: String
    init(on mount: Mount) throws {
      path = mount.path + "/docpkg-names-\(UUID().uuidString.prefix(8))"
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      // The mount is still what it was (not unmounted or remade under a running test): it folds case.
      _ = FileManager.default.createFile(atPath: path + "/case", contents: nil)
      defer { try? FileManager.default.removeItem(atPath: path + "/case") }
      try #require(
        FileManager.default.fileExists(atPath: path + "/CASE"),
        "\(mount.path) does not fold case: not \(mount.name) now?")
    }
    // rm rather than FileManager, whose removal fusefat refuses.
    deinit { _ = try? Shell.run("rm", ["-rf", path]) }

    /// Writes `contents` at `relative`, making the directories on the way (without docpkg).
    func write(_ relative: String, _ contents: String) throws {
      let full = path + "/" + relative
      try FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      #expect(FileManager.default.createFile(atPath: full, contents: Data(contents.utf8)))
    }

    /// Every path below the folder with its bytes (names compared by their bytes, not as `String`s).
    func snapshot() throws -> [[UInt8]: Data] {
      var result: [[UInt8]: Data] = [:]
      for relative in try FileManager.default.subpathsOfDirectory(atPath: path) {
        // A FUSE file system's name for a file removed while still open (the lock file a command just dropped): the
        // mount's, gone once the file is closed, not something written.
        if relative.split(separator: "/").last?.hasPrefix(".fuse_hidden") == true { continue }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isDirectory)
        result[Array(relative.utf8)] =
          isDirectory.boolValue ? Data() : try Data(contentsOf: URL(fileURLWithPath: path + "/" + relative))
      }
      return result
    }
  }

  /// Runs `arguments` and expects the one-line refusal `message` and exit 1, with the folder unchanged.
  func expectRefusal(_ arguments: [String], in folder: MountFolder, _ message: String, input: Data? = nil) throws {
    let before = try folder.snapshot()
    let result = try Shell.docpkg(arguments, input: input)
    #expect(result.status == 1, "\(arguments): \(result.standardError)")
    #expect(result.standardError == "docpkg: error: \(message)\n")
    #expect(try folder.snapshot() == before, "something was written")
  }

  static let source: String = {
    let path = NSTemporaryDirectory() + "/docpkg-names-source.txt"
    _ = FileManager.default.createFile(atPath: path, contents: Data("new\n".utf8))
    return path
  }()

  @Test("put refuses a name differing only in case from a sibling's, and a directory's", arguments: mounts)
  func putRefusesCaseTwins(_ mount: Mount) throws {
    let folder = try MountFolder(on: mount)
    try folder.write("Trip.pkg/Notes/a.txt", "old\n")
    let package = folder.path + "/Trip.pkg"
    try expectRefusal(
      ["put", package, "Notes/A.txt", Self.source], in: folder,
      "cannot save 'Notes/A.txt' in '\(package)': it differs from 'Notes/a.txt' only in case, which the file "
        + "system at '\(folder.path)' does not tell apart")
    try expectRefusal(
      ["put", package, "notes/b.txt", Self.source], in: folder,
      "cannot save 'notes' in '\(package)': it differs from 'Notes' only in case, which the file system at "
        + "'\(folder.path)' does not tell apart")
  }

  @Test("put refuses names the file system cannot hold", arguments: mounts)
  func putRefusesReservedNames(_ mount: Mount) throws {
    let folder = try MountFolder(on: mount)
    try folder.write("Trip.pkg/a.txt", "old\n")
    let package = folder.path + "/Trip.pkg"
    for (name, character) in [("x:y.txt", ":"), ("what?.txt", "?"), ("Notes/a|b", "|"), ("q\"uote", "\"")] {
      try expectRefusal(
        ["put", package, name, Self.source], in: folder,
        "cannot save '\(name)' in '\(package)': '\(character)' is not allowed in a name on the file system at "
          + "'\(folder.path)'")
    }
    if !mount.takesNonASCII {
      try expectRefusal(
        ["put", package, "caf\u{E9}.txt", Self.source], in: folder,
        "cannot save 'caf\u{E9}.txt' in '\(package)': a name with '\u{E9}' (not ASCII) is not allowed on the "
          + "file system at '\(folder.path)'")
    }
  }

  @Test(
    "decomposed and precomposed names: case still folds, and two names exFAT holds apart are kept", arguments: mounts)
  func putDecomposedNames(_ mount: Mount) throws {
    let folder = try MountFolder(on: mount)
    try folder.write("Trip.pkg/README", "x\n")
    let package = folder.path + "/Trip.pkg"
    guard mount.takesNonASCII else {
      try expectRefusal(
        ["put", package, "e\u{301}.txt", Self.source], in: folder,
        "cannot save 'e\u{301}.txt' in '\(package)': a name with '\u{301}' (not ASCII) is not allowed on the "
          + "file system at '\(folder.path)'")
      return
    }
    try folder.write("Trip.pkg/\u{C9}.txt", "precomposed capital\n")  // U+00C9
    // é precomposed is É precomposed's case twin.
    try expectRefusal(
      ["put", package, "\u{E9}.txt", Self.source], in: folder,
      "cannot save '\u{E9}.txt' in '\(package)': it differs from '\u{C9}.txt' only in case, which the file "
        + "system at '\(folder.path)' does not tell apart")
    // e + U+0301 (decomposed, small) is not: exFAT does not normalize, and holds both.
    var result = try Shell.docpkg(["put", package, "e\u{301}.txt", Self.source, "--versions", "none"])
    #expect(result.status == 0, "\(result.standardError)")
    let names = try FileManager.default.contentsOfDirectory(atPath: package).map { Array($0.utf8) }
    #expect(Set(names) == Set(["README", "\u{C9}.txt", "e\u{301}.txt"].map { Array($0.utf8) }))
    result = try Shell.docpkg(["cat", package, "e\u{301}.txt"])
    #expect(result.standardOutput == "new\n")
    // E + U+0301 is the decomposed small one's case twin. (Beside É it would be É to the model, which
    // takes canonically equivalent names for one: a package of its own.)
    try folder.write("Two.pkg/e\u{301}.txt", "decomposed small\n")
    let two = folder.path + "/Two.pkg"
    try expectRefusal(
      ["put", two, "E\u{301}.txt", Self.source], in: folder,
      "cannot save 'E\u{301}.txt' in '\(two)': it differs from 'e\u{301}.txt' only in case, which the file "
        + "system at '\(folder.path)' does not tell apart")
  }

  /// Makes an archive at `path` with `python3` (tarfile or zipfile): each entry a file holding its name.
  static func makeArchive(_ path: String, _ names: [String]) throws {
    let script = """
      import io, sys, tarfile, zipfile
      path, names = sys.argv[1], sys.argv[2:]
      if path.endswith('.zip'):
          with zipfile.ZipFile(path, 'w') as z:
              for n in names: z.writestr(n, n)
      else:
          with tarfile.open(path, 'w') as t:
              for n in names:
                  data = n.encode(); info = tarfile.TarInfo(n); info.size = len(data)
                  t.addfile(info, io.BytesIO(data))
      """
    try Shell.run("python3", ["-c", script, path] + names)
  }

  @Test(
    "unpack refuses an archive with case twins or a refused name, leaving the destination untouched",
    // Not on fusefat: unpack refuses it whatever the names (it empties renamed directories; FileSystemTests).
    arguments: mounts.filter { $0.name != "FAT" })
  func unpackRefuses(_ mount: Mount) throws {
    let temp = try TemporaryDirectory("names")
    let folder = try MountFolder(on: mount)
    try folder.write("kept.txt", "here before\n")
    let tar = temp.appending("twins.tar")
    try Self.makeArchive(tar, ["Trip.pkg/a.txt", "Trip.pkg/A.txt"])
    try expectRefusal(
      ["unpack", tar, "--output", folder.path], in: folder,
      "cannot unpack 'Trip.pkg/A.txt' from '\(tar)': it differs from 'Trip.pkg/a.txt' only in case, which the file "
        + "system at '\(folder.path)' does not tell apart")
    let zip = temp.appending("folders.zip")
    try Self.makeArchive(zip, ["Trip.pkg/Dir/x.txt", "Trip.pkg/dir/y.txt"])
    try expectRefusal(
      ["unpack", zip, "--output", folder.path], in: folder,
      "cannot unpack 'Trip.pkg/dir' from '\(zip)': it differs from 'Trip.pkg/Dir' only in case, which the file "
        + "system at '\(folder.path)' does not tell apart")
    let colon = temp.appending("colon.tar")
    try Self.makeArchive(colon, ["Trip.pkg/ok.txt", "Trip.pkg/x:y.txt"])
    try expectRefusal(
      ["unpack", colon, "--output", folder.path], in: folder,
      "cannot unpack 'Trip.pkg/x:y.txt' from '\(colon)': ':' is not allowed in a name on the file system at "
        + "'\(folder.path)'")
    // From standard input too (spooled into the destination first, and removed).
    try expectRefusal(
      ["unpack", "-", "--output", folder.path], in: folder,
      "cannot unpack 'Trip.pkg/A.txt' from 'standard input': it differs from 'Trip.pkg/a.txt' only in case, which "
        + "the file system at '\(folder.path)' does not tell apart",
      input: try Data(contentsOf: URL(fileURLWithPath: tar)))
    // The same names apart are fine.
    let apart = temp.appending("apart.tar")
    try Self.makeArchive(apart, ["Trip.pkg/a.txt", "Trip.pkg/b.txt"])
    let result = try Shell.docpkg(["unpack", apart, "--output", folder.path])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(FileManager.default.fileExists(atPath: folder.path + "/Trip.pkg/b.txt"))
  }

  @Test(
    "versions restore refuses a version holding case twins, keeping no version and changing nothing", arguments: mounts)
  func restoreRefusesCaseTwins(_ mount: Mount) throws {
    // The versions are made on a case-sensitive file system, then package and store copied to the mount.
    let temp = try TemporaryDirectory("names")
    let made = temp.appending("Trip.pkg")
    for arguments in [
      ["put", made, "a.txt", Self.source, "--create"], ["put", made, "A.txt", Self.source], ["rm", made, "A.txt"],
    ] {
      let result = try Shell.docpkg(arguments)
      #expect(result.status == 0, "\(arguments): \(result.standardError)")
    }
    let folder = try MountFolder(on: mount)
    let package = folder.path + "/Trip.pkg"
    // cp without -p: FileManager's copy sets attributes fusefat refuses (ENOSYS).
    try Shell.run("cp", ["-R", made, temp.appending(".Trip.pkg.docpkg-versions"), folder.path])
    // The copy lost the package's identity (an extended attribute): it is the same document.
    var result = try Shell.docpkg(["versions", "adopt", package])
    #expect(result.status == 0, "\(result.standardError)")
    result = try Shell.docpkg(["versions", "list", package, "--json"])
    let versions = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
    let last = try #require(versions.last?["id"] as? Int)
    try expectRefusal(
      ["versions", "restore", package, String(last)], in: folder,
      "cannot save 'a.txt' in '\(package)': it differs from 'A.txt' only in case, which the file system at "
        + "'\(folder.path)' does not tell apart")
  }
}

/// A mounted file system to test names on.
struct NamesMount: CustomTestStringConvertible, Sendable {
  let name: String
  let path: String
  var testDescription: String { name }
  /// fusefat refuses every name beyond ASCII; exFAT holds them (and folds their case).
  var takesNonASCII: Bool { name == "exFAT" }

  /// The mounts the environment names.
  static let all: [NamesMount] = [("exFAT", "DOCPKG_FS_EXFAT"), ("FAT", "DOCPKG_FS_FAT")].compactMap {
    name, variable in ProcessInfo.processInfo.environment[variable].map { NamesMount(name: name, path: $0) }
  }
}
