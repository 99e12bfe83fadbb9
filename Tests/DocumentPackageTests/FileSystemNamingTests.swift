import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Names a file system cannot hold, or does not tell apart.
///
/// The rules (``FileSystemNaming``), the per-directory check (``SiblingNameCheck``), the probe, and a
/// save's check of its model. These run anywhere; `FileSystemNamesCommandTests` runs the same cases on
/// real FAT and exFAT mounts.
@Suite("file system names")
struct FileSystemNamingTests {
  /// exFAT as exfat-fuse showed itself here: case folded beyond ASCII, no normalization, `"*:<>?\|` and
  /// control characters refused, trailing dots and spaces kept.
  static let exFAT: FileSystemNaming = {
    var naming = FileSystemNaming()
    naming.caseFolding = .unicode
    naming.refusesReservedCharacters = true
    return naming
  }()
  /// FAT as fusefat showed itself here: ASCII case folded, reserved characters and everything beyond ASCII refused.
  static let fat: FileSystemNaming = {
    var naming = FileSystemNaming()
    naming.caseFolding = .ascii
    naming.refusesReservedCharacters = true
    naming.refusesNonASCII = true
    return naming
  }()
  /// macOS's default APFS: case and normalization folded.
  static let apfs: FileSystemNaming = {
    var naming = FileSystemNaming()
    naming.caseFolding = .unicode
    naming.normalizes = true
    return naming
  }()

  static func check(_ naming: FileSystemNaming, device: UInt64 = 0) -> SiblingNameCheck {
    SiblingNameCheck(
      naming: naming, fileSystem: "/media/stick", identity: FileSystemIdentity(device: device, mount: 0))
  }

  /// The clash among `names` (one directory's) under `naming`, as (path, sibling, reason).
  static func clash(_ names: [String], _ naming: FileSystemNaming) -> NameClash? {
    check(naming).clash(among: names, in: "")
  }

  @Test("a file system that holds every name apart refuses none and takes no two for one")
  func posixHoldsEverything() {
    #expect(!FileSystemNaming.posix.restricts)
    #expect(Self.clash(["a.txt", "A.txt", "x:y", "dot.", "sp ", "\u{C9}", "e\u{301}", "E\u{301}"], .posix) == nil)
  }

  @Test("case: names that differ only in case are one on exFAT, FAT and APFS, and never on ext4")
  func caseFolding() throws {
    for naming in [Self.exFAT, Self.fat, Self.apfs] {
      let clash = try #require(Self.clash(["a.txt", "b.txt", "A.txt"], naming))
      #expect(clash.path == "A.txt")
      #expect(clash.sibling == "a.txt")
      #expect(clash.reason == "case")
    }
    // Beyond ASCII: exFAT and APFS fold é and É; FAT here refuses both names anyway.
    #expect(Self.clash(["\u{E9}", "\u{C9}"], Self.exFAT)?.reason == "case")
    #expect(Self.clash(["\u{E9}", "\u{C9}"], Self.apfs)?.reason == "case")
    #expect(Self.clash(["stra\u{DF}e", "STRASSE"], Self.exFAT) == nil)  // ß has no one-letter upper case
    #expect(Self.clash(["Notes", "notes.txt", "NOTES2"], Self.exFAT) == nil)
  }

  @Test("normalization: only a normalizing file system takes É and E + U+0301 for one")
  func normalization() throws {
    // exFAT keeps normalizations apart: É (U+00C9) and e + U+0301 are two names there.
    #expect(Self.clash(["\u{C9}.txt", "e\u{301}.txt"], Self.exFAT) == nil)
    // ...but folds the case of a decomposed name like any other.
    #expect(Self.clash(["e\u{301}.txt", "E\u{301}.txt"], Self.exFAT)?.reason == "case")
    let both = try #require(Self.clash(["\u{C9}.txt", "e\u{301}.txt"], Self.apfs))
    #expect(both.reason == "case and Unicode normalization")
    // Canonically equivalent names are one entry to the model, never a clash.
    for naming in [FileSystemNaming.posix, Self.exFAT, Self.apfs] {
      #expect(Self.clash(["\u{E9}.txt", "e\u{301}.txt"], naming) == nil)
      #expect(Self.clash(["\u{C9}.txt", "E\u{301}.txt"], naming) == nil)
    }
  }

  @Test("names FAT and exFAT cannot hold are refused, each with its reason")
  func refusedNames() {
    for character in ["\"", "*", ":", "<", ">", "?", "\\", "|"] {
      #expect(Self.exFAT.problem(with: "a\(character)b.txt") == "'\(character)' is not allowed in a name")
      #expect(FileSystemNaming.posix.problem(with: "a\(character)b.txt") == nil)
    }
    #expect(Self.exFAT.problem(with: "tab\there") == "'\t' is not allowed in a name")
    #expect(Self.exFAT.problem(with: "caf\u{E9}.txt") == nil)
    #expect(Self.fat.problem(with: "caf\u{E9}.txt") == "a name with '\u{E9}' (not ASCII) is not allowed")
    #expect(Self.exFAT.problem(with: "dot.") == nil)
    var vfat = Self.exFAT
    vfat.trailingDot = .dropped
    vfat.trailingSpace = .refused
    #expect(vfat.problem(with: "dot.") == "a name cannot end in '.'")
    #expect(vfat.problem(with: "space ") == "a name cannot end in a space")
    #expect(vfat.problem(with: ".hidden") == nil)
    let clash = Self.clash(["fine.txt", "x:y.txt"], Self.exFAT)
    #expect(clash?.path == "x:y.txt")
    #expect(clash?.sibling == nil)
  }

  @Test("the errors name both entries, why, and the file system, on one line")
  func errorWording() throws {
    let clash = try #require(Self.check(Self.exFAT).clash(among: ["a.txt", "A.txt"], in: "Notes"))
    #expect(
      clash.error("cannot save", "in 'Trip.mydoc'").description
        == "cannot save 'Notes/A.txt' in 'Trip.mydoc': it differs from 'Notes/a.txt' only in case, which the file "
        + "system at '/media/stick' does not tell apart")
    #expect(clash.error("cannot save", "in 'Trip.mydoc'").code == .invalidName)
    let refused = try #require(Self.check(Self.exFAT).clash(among: ["x:y.txt"], in: ""))
    #expect(
      refused.error("cannot unpack", "from 'a.tar'").description
        == "cannot unpack 'x:y.txt' from 'a.tar': ':' is not allowed in a name on the file system at '/media/stick'")
    let control = try #require(Self.check(Self.exFAT).clash(among: ["bell\u{7}"], in: ""))
    #expect(!control.error("cannot save", "in 'p'").description.contains("\u{7}"))  // escaped, one line
  }

  @Test("entry by entry: siblings are compared with siblings only, directories implied or described again")
  func entryByEntry() throws {
    var check = Self.check(Self.exFAT)
    #expect(check.add(["pkg", "Dir", "x.txt"]) == nil)
    #expect(check.add(["pkg", "other", "X.txt"]) == nil)  // not a sibling of Dir/x.txt
    #expect(check.add(["pkg", "Dir"]) == nil)  // described after its entries
    #expect(check.add(["pkg", "Dir", "y.txt"]) == nil)
    #expect(check.add(["pkg", "\u{E9}"]) == nil)
    #expect(check.add(["pkg", "e\u{301}", "z"]) == nil)  // the same directory, to the model
    let found = check.add(["pkg", "dir", "z.txt"])  // the directory itself clashes
    let clash = try #require(found)
    #expect(clash.path == "pkg/dir")
    #expect(clash.sibling == "pkg/Dir")
    var fresh = Self.check(Self.exFAT)
    #expect(fresh.add(["a.txt"]) == nil)
    #expect(fresh.add(["A.txt"])?.sibling == "a.txt")
  }

  @Test("entry by entry, 10,000 directories deep: no recursion, the clash found at the bottom")
  func deepEntries() throws {
    var check = Self.check(Self.exFAT)
    let chain = Array(repeating: "d", count: 10_000)
    #expect(check.add(chain + ["a.txt"]) == nil)
    let found = check.add(chain + ["A.txt"])
    let clash = try #require(found)
    #expect(clash.path == (chain + ["A.txt"]).joined(separator: "/"))
  }

  @Test("the probe finds a case-sensitive file system here holds every name, and leaves nothing behind")
  func probeLeavesNothing() throws {
    let temp = try TemporaryDirectory()
    let fd = try Syscalls.openDirectory(temp.filePath)
    defer { Syscalls.closeFile(fd) }
    let probe = try #require(Syscalls.probeNames(in: fd))
    // /tmp is tmpfs or ext4 on every machine the tests run on: case-sensitive, nothing refused.
    #expect(FileSystemNaming(probe) == .posix)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    #expect(FileSystemNaming.of(directory: temp.filePath).naming == .posix)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
  }

  @Test("a directory that takes no new file gives no answer (and no refusal), and is left as it was")
  func probeOfADirectoryThatTakesNothing() throws {
    let temp = try TemporaryDirectory()
    let gone = try temp.makeDirectory("gone")
    let fd = try Syscalls.openDirectory(FilePath(gone))
    defer { Syscalls.closeFile(fd) }
    try FileManager.default.removeItem(atPath: gone)  // creating in a removed directory fails (ENOENT)
    #expect(Syscalls.probeNames(in: fd) == nil)
    #expect(FileSystemNaming.of(directoryFD: fd).naming == .posix)
  }

  @Test("on a case-sensitive file system a package holds a.txt beside A.txt, saved and read back")
  func caseSensitiveSavesBoth() throws {
    let temp = try TemporaryDirectory()
    let path = FilePath(temp.appending("Both.pkg"))
    let file = try PackageFile.create(at: path)
    _ = try file.root.setFile(at: "Notes/a.txt", contents: Data("lower".utf8))
    _ = try file.root.setFile(at: "Notes/A.txt", contents: Data("upper".utf8))
    _ = try file.root.setFile(at: "x:y?.txt", contents: Data("colon".utf8))
    try file.save()
    file.close()
    #expect(try String(contentsOfFile: temp.appending("Both.pkg/Notes/a.txt"), encoding: .utf8) == "lower")
    #expect(try String(contentsOfFile: temp.appending("Both.pkg/Notes/A.txt"), encoding: .utf8) == "upper")
    #expect(FileManager.default.fileExists(atPath: temp.appending("Both.pkg/x:y?.txt")))
  }

  @Test("a save compares only directories it writes anew: changed, new, or from another file system")
  func saveComparesWhatItWrites() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Old.pkg/Same/a.txt", "a")
    try temp.write("Old.pkg/Same/A.txt", "A")  // on disk already: held apart here
    try temp.write("Old.pkg/Changed/b.txt", "b")
    let path = FilePath(temp.appending("Old.pkg"))
    let device = try Syscalls.statusFollowing(temp.filePath).device
    let here = Self.check(Self.exFAT, device: device)
    let root = try PackageNode(contentsOf: path)
    _ = try root.node(at: "Same").children()  // listed, unchanged: not compared
    try root.checkNamesFit(savingTo: path, here)
    _ = try root.setFile(at: "Changed/c.txt", contents: Data("c".utf8))
    try root.checkNamesFit(savingTo: path, here)
    _ = try root.setFile(at: "Changed/B.txt", contents: Data("B".utf8))
    let error = try #require(throws: PackageError.self) { try root.checkNamesFit(savingTo: path, here) }
    #expect(error.path == "Changed/B.txt")
    #expect(error.context.contains("it differs from 'Changed/b.txt' only in case"))
    // Saved elsewhere (another device): everything is compared, what was never listed from disk.
    let fresh = try PackageNode(contentsOf: path)
    let elsewhere = Self.check(Self.exFAT, device: device &+ 1)
    let copy = FilePath(temp.appending("Copy.pkg"))
    let listed = try #require(throws: PackageError.self) { try fresh.checkNamesFit(savingTo: copy, elsewhere) }
    #expect(listed.context.contains("only in case"))
    #expect(["Same/a.txt", "Same/A.txt"].contains(listed.path))  // in the order the directory lists them
    // The package's own name.
    let badName = try #require(throws: PackageError.self) {
      try fresh.checkNamesFit(savingTo: FilePath(temp.appending("What?.pkg")), here)
    }
    #expect(badName.description.hasPrefix("cannot save 'What?.pkg' in '\(temp.path)': '?' is not allowed"))
  }

  @Test("a save's check walks a new tree 10,000 directories deep without recursion")
  func deepModel() throws {
    let temp = try TemporaryDirectory()
    let root = try DeepTreeTests.chain(depth: 10_000, contents: "bottom")
    let inner = DeepTree.innerPath(depth: 10_000)
    _ = try root.setFile(at: inner + "/a.txt", contents: Data("a".utf8))
    _ = try root.setFile(at: inner + "/A.txt", contents: Data("A".utf8))
    let error = try #require(throws: PackageError.self) {
      try root.checkNamesFit(savingTo: FilePath(temp.appending("Deep.pkg")), Self.check(Self.exFAT))
    }
    #expect(error.path == inner + "/a.txt")  // new entries in byte order: A.txt first
    #expect(error.context.contains("it differs from '\(inner)/A.txt' only in case"))
  }
}
