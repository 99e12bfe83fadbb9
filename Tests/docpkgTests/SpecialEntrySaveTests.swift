import Foundation
import TestSupport
import Testing

/// FIFOs and sockets a user puts in a package are not part of the model (nor of versions, nor of archives), but
/// no save deletes them: whatever a save rebuilds around them, they stay where they are.
@Suite("docpkg saves keep FIFOs and sockets")
struct SpecialEntrySaveTests {
  /// The FIFOs (`p`) and sockets (`s`) in `package`, by path, as `find` lists them.
  static func specialEntries(_ package: String) throws -> [String] {
    let found = try Shell.run(
      "find", [".", "(", "-type", "p", "-o", "-type", "s", ")", "-printf", "%y %P\\n"], directory: package)
    return found.standardOutput.split(separator: "\n").map(String.init).sorted()
  }

  @Test func everyKindOfSaveLeavesThemWhereTheyAre() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    func docpkg(_ arguments: [String], _ input: String? = nil) throws {
      let result = try Shell.docpkg(arguments, input: input.map { Data($0.utf8) })
      #expect(result.status == 0, "\(arguments): \(result.standardError)")
    }
    try docpkg(["put", package, "a.txt", "--create"], "a\n")
    try docpkg(["put", package, "sub/b.txt"], "b\n")
    try docpkg(["put", package, "sub/deeper/x.txt"], "x\n")
    try Shell.run("mkfifo", [package + "/pipe0", package + "/sub/pipe", package + "/sub/deeper/pipe"])
    if Shell.has("python3") {
      let bind = "import socket,sys\nfor p in sys.argv[1:]: socket.socket(socket.AF_UNIX).bind(p)"
      try Shell.run("python3", ["-c", bind, package + "/sock0", package + "/sub/sock"])
    }
    let before = try Self.specialEntries(package)
    #expect(before.count >= 3)
    let saves: [(arguments: [String], input: String?)] = [
      (["put", package, "c.txt"], "c\n"),  // a new root entry
      (["put", package, "a.txt"], "a2\n"),  // a root entry replaced
      (["put", package, "sub/b.txt"], "b2\n"),  // below a folder: the folder rebuilt
      (["put", package, "sub/deeper/y.txt"], "y\n"),
      (["rm", package, "c.txt"], nil),  // a root entry removed: a new root
      (["rm", package, "sub/deeper/x.txt"], nil),
      (["put", package, "e/f.txt", "--merge"], "f\n"),
      (["versions", "restore", package, "4"], nil),  // the whole package replaced (4: a.txt, sub/b.txt, sub/deeper/x.txt)
    ]
    for save in saves {
      try docpkg(save.arguments, save.input)
      #expect(try Self.specialEntries(package) == before, "after \(save.arguments.dropFirst(2))")
    }
    try docpkg(["versions", "settle", package])
    try docpkg(["check", package, "--full"])
    // Versions do not keep them (as pack does not): a version restored has none but the live ones.
    let show = try Shell.docpkg(["versions", "show", package, "5"])
    #expect(show.status == 0 && show.standardOutput.contains("c.txt"), "\(show.standardError)")
    #expect(!show.standardOutput.contains("pipe") && !show.standardOutput.contains("sock"), "\(show.standardOutput)")
    // Removing their folder removes them with it: that is the user's removal (restoring a version without it too).
    try docpkg(["versions", "restore", package, "2"])  // 2: a.txt alone
    #expect(try Self.specialEntries(package) == before.filter { !$0.contains(" sub/") })
    try docpkg(["put", package, "sub/b.txt"], "b\n")
    try Shell.run("mkfifo", [package + "/sub/pipe"])
    try docpkg(["rm", package, "sub", "-r"])
    #expect(try Self.specialEntries(package) == before.filter { !$0.contains(" sub/") })
  }
}
