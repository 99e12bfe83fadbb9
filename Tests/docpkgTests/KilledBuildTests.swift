import Foundation
import TestSupport
import Testing

/// Issue 35: a deferred save killed while it builds its new state, after another program changed a file in a way only
/// the file's change time shows (written in place with its time set back, or `chmod`ed) since a pending version's
/// capture. The build's hard links move that change time again, and the kill leaves no record of what they found:
/// the version then held the changed bytes or mode while `check` said ok. It must keep the file as it was at the
/// capture, or name it as not kept.
@Suite("docpkg versions: a save killed while building")
struct KilledBuildTests {
  /// The commands, run with the detached settler held off, as in the window tests.
  typealias Commands = PendingWindowCommandTests

  /// The line of `versions show` for the file `name` of the folder `Data/`, without the tree drawing.
  static func entry(_ tree: String, _ name: String) -> String? {
    tree.split(separator: "\n").first { $0.hasSuffix(" \(name)") }.map {
      $0.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ")
    }
  }

  /// Kills `put Data/new.txt` at each hard link its build makes in turn (the folder `Data/` is rebuilt: its
  /// unchanged files are linked into the new tree), after `change` was made to `Data/a.bin`.
  @Test(.enabled(if: Shell.has("strace")), arguments: ["write", "chmod"])
  func aChangeOnlyItsChangeTimeShowsIsNeverKeptAfterAKilledBuild(_ change: String) throws {
    var killed = 0
    for link in 1...8 {
      let temp = try TemporaryDirectory()
      let package = temp.appending("K.mydoc")
      try Commands.run(["put", package, "Data/a.bin", "--create"], "original a")
      try Commands.run(["put", package, "Data/b.bin"], "original b")
      try Commands.run(["put", package, "c.txt"], "c")
      try Commands.run(["versions", "settle", package])
      // A pending version (nothing may read the store before the change: every reading settles it first).
      try Commands.run(["put", package, "c.txt"], "c, second")
      let file = package + "/Data/a.bin"
      let attributes = try FileManager.default.attributesOfItem(atPath: file)
      let mode = try #require(attributes[.posixPermissions] as? Int)
      let kept = "file \(String(format: "%04o", mode)) 10"
      if change == "write" {
        let handle = try #require(FileHandle(forWritingAtPath: file))
        handle.write(Data("CHANGED".utf8))
        handle.closeFile()
        try FileManager.default.setAttributes(
          [.modificationDate: try #require(attributes[.modificationDate])], ofItemAtPath: file)
      } else {
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
      }

      let put = try Shell.run(
        "/usr/bin/env",
        [
          "DOCPKG_NO_BACKGROUND_SETTLE=1", "strace", "-f", "-o", "/dev/null", "-e", "trace=linkat",
          "-e", "inject=linkat:signal=KILL:when=\(link)", Shell.docpkgPath, "put", package, "Data/new.txt",
        ], input: Data("new".utf8), check: false)
      if put.status == 0 { break }
      killed += 1

      let check = try Shell.docpkg(["check", package], environment: Commands.noBackground)
      let ids =
        try JSONSerialization.jsonObject(
          with: Data(try Shell.docpkg(["versions", "list", package, "--json"]).standardOutput.utf8)) as? [[String: Any]]
      let id = try #require(ids?.compactMap { $0["id"] as? Int }.max())
      let named = check.standardOutput.split(separator: "\n").contains {
        $0.hasPrefix("damaged: version \(id): Data/a.bin: not kept")
      }
      let tree = try Shell.docpkg(["versions", "show", package, "\(id)"]).standardOutput
      if named {
        #expect(check.status == 1, "link \(link): \(check.standardOutput)")
      } else {
        #expect(check.status == 0, "link \(link): \(check.standardOutput)")
        #expect(Self.entry(tree, "a.bin") == kept, "link \(link): \(tree)")
        let bytes = try Shell.docpkg(["versions", "show", package, "\(id)", "Data/a.bin"]).standardOutput
        #expect(bytes == "original a", "link \(link): the version holds \(bytes)")
      }
      // The file the change did not touch is kept as it was.
      #expect(Self.entry(tree, "b.bin") == "file \(String(format: "%04o", mode)) 10", "link \(link): \(tree)")
    }
    #expect(killed >= 2, "the build made fewer links than expected")
  }
}
