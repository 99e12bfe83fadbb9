import Foundation
import TestSupport
import Testing

/// Issue 37: `pack -o OUT` replaces only a regular file. A FIFO or a character device (or a link to
/// one, as `/dev/stdout` is) is written into, as `tar -f` does; anything else is refused and kept.
@Suite("pack -o: what is at OUT", .enabled(if: Shell.has("unzip")))
struct PackOutputKindTests {
  func bash(_ script: String, in temp: TemporaryDirectory) throws -> Shell.Output {
    try Shell.run(
      "bash", ["-c", script], environment: ["DOCPKG": Shell.docpkgPath], directory: temp.path, check: false)
  }

  @Test("a FIFO at OUT is written into: the reader gets a whole zip and the FIFO stays a FIFO")
  func fifo() throws {
    let temp = try TemporaryDirectory()
    _ = try Fixtures.copy("Notes.mydoc", into: temp)
    let result = try bash(
      """
      mkfifo out.zip && { cat out.zip > got.zip & } && "$DOCPKG" pack Notes.mydoc -o out.zip; status=$?; wait
      test -p out.zip || echo "no longer a FIFO"; unzip -tq got.zip >/dev/null || echo "not a whole zip"; exit $status
      """, in: temp)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "")
  }

  @Test("a link to /dev/null at OUT, and a character device made with mknod, are written into and kept")
  func characterDevices() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    try FileManager.default.createSymbolicLink(atPath: temp.appending("null.zip"), withDestinationPath: "/dev/null")
    try Shell.docpkgChecked(["pack", package, "-o", temp.appending("null.zip")])
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: temp.appending("null.zip")) == "/dev/null")
    // The reported attack: `mknod myfull c 1 7` replaced by a regular file (here /dev/null's numbers, so writes succeed).
    let made = try bash("mknod mynull c 1 3", in: temp)
    if made.status == 0 {
      try Shell.docpkgChecked(["pack", package, "-o", temp.appending("mynull"), "--format", "zip"])
      #expect(try bash("test -c mynull", in: temp).status == 0, "mynull is no longer a character device")
    }
  }

  @Test(
    "a directory, a link to a file, a dangling link and a socket at OUT are refused in one line naming OUT, and kept",
    arguments: ["directory", "link-to-file", "dangling-link", "socket"])
  func refused(kind: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let make: String =
      switch kind {
      case "directory": "mkdir out.zip"
      case "link-to-file": "echo keep > file.zip && ln -s file.zip out.zip"
      case "dangling-link": "ln -s missing.zip out.zip"
      default: "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"out.zip\")'"
      }
    let before = try bash("\(make) && stat -c %F out.zip", in: temp)
    try #require(before.status == 0, "\(before.standardError)")
    let result = try Shell.docpkg(["pack", package, "-o", temp.appending("out.zip")])
    #expect(result.status == 1)
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 1 && result.standardError.contains("out.zip"), "\(result.standardError)")
    #expect(try bash("stat -c %F out.zip", in: temp).standardOutput == before.standardOutput)
    if kind == "link-to-file" {
      #expect(try String(contentsOfFile: temp.appending("file.zip"), encoding: .utf8) == "keep\n")
    }
    #expect(!entries(below: temp.path).contains { $0.contains("docpkg-pack") })
  }
}
