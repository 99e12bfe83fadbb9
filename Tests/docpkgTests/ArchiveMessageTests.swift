import Foundation
import TestSupport
import Testing

/// What a person sees when an archive command cannot do its work: one line on standard error that names the path,
/// in words (no libarchive error number, no stray spaces), and a non-zero exit, as tar and unzip do.
@Suite("archive commands fail with one line naming the path")
struct ArchiveMessageTests {
  /// Writes a small package's archives, whole and cut short, into `temp`.
  private func makeArchives(in temp: TemporaryDirectory) throws {
    let script = """
      import bz2, gzip, io, lzma, os, sys, tarfile, zipfile
      os.chdir(sys.argv[1])
      data = os.urandom(20000).hex().encode()
      buffer = io.BytesIO()
      with tarfile.open(fileobj=buffer, mode="w") as t:
          info = tarfile.TarInfo("pkg/a.txt"); info.size = len(data); t.addfile(info, io.BytesIO(data))
      raw = buffer.getvalue()
      for name, packed in [("a.tar", raw), ("a.tar.gz", gzip.compress(raw)), ("a.tar.bz2", bz2.compress(raw)),
                           ("a.tar.xz", lzma.compress(raw))]:
          open("cut-" + name, "wb").write(packed[: len(packed) // 3])
      with zipfile.ZipFile("a.zip", "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("pkg/a.txt", data)
      whole = open("a.zip", "rb").read()
      open("cut-a.zip", "wb").write(whole[: len(whole) // 2])
      open("a-whole.tar.gz", "wb").write(gzip.compress(raw))
      open("gzip-cut-in-trailer.tar.gz", "wb").write(gzip.compress(raw)[:-3])
      open("not-an-archive.txt", "w").write("hello")
      open("empty.tar", "w").close()
      """
    try Shell.run("python3", ["-c", script, temp.path])
    _ = try temp.makeDirectory("a-folder")
    _ = try temp.write("a-file", "x")
  }

  @Test(
    "inspect, cat and unpack of a missing, wrong or cut archive fail with one line naming it",
    arguments: [
      "missing.zip", "not-an-archive.txt", "empty.tar", "cut-a.tar", "cut-a.tar.gz", "cut-a.tar.bz2", "cut-a.tar.xz",
      "cut-a.zip", "gzip-cut-in-trailer.tar.gz",
    ])
  func badArchive(_ name: String) throws {
    let temp = try TemporaryDirectory()
    try makeArchives(in: temp)
    let archive = temp.appending(name)
    let out = temp.appending("out")
    for arguments in [["inspect", archive], ["cat", archive, "a.txt"], ["unpack", archive, "-o", out]] {
      let result = try Shell.docpkg(arguments)
      Self.expectOneLine(result, naming: archive, arguments)
    }
    #expect((try? FileManager.default.contentsOfDirectory(atPath: out))?.isEmpty ?? true)
  }

  @Test("unpack into a file, and pack into a folder or a missing folder, fail with one line naming the path")
  func badOutput() throws {
    let temp = try TemporaryDirectory()
    try makeArchives(in: temp)
    _ = try temp.write("Pkg.mydoc/a.txt", "x")
    let cases: [([String], String)] = [
      (["unpack", temp.appending("a.zip"), "-o", temp.appending("a-file")], temp.appending("a-file")),
      (["unpack", temp.appending("a.zip"), "-o", temp.appending("a-file/sub")], temp.appending("a-file/sub")),
      (["unpack", temp.appending("a-folder"), "-o", temp.appending("out")], temp.appending("a-folder")),
      (
        ["pack", temp.appending("Pkg.mydoc"), "-o", temp.appending("a-folder"), "--format", "zip"],
        temp.appending("a-folder")
      ),
      (["pack", temp.appending("Pkg.mydoc"), "-o", temp.appending("none/x.zip")], temp.appending("none/x.zip")),
      (["pack", temp.appending("a-file"), "-o", temp.appending("x.zip")], temp.appending("a-file")),
      (["inspect", temp.appending("a-file")], temp.appending("a-file")),
      (["cat", temp.appending("a-whole.tar.gz"), "nope.txt"], temp.appending("a-whole.tar.gz")),
    ]
    for (arguments, path) in cases {
      Self.expectOneLine(try Shell.docpkg(arguments), naming: path, arguments)
    }
  }

  private static func expectOneLine(_ result: Shell.Output, naming path: String, _ arguments: [String]) {
    let message = result.standardError
    #expect(result.status != 0, "\(arguments)")
    #expect(message.hasPrefix("docpkg: error: ") && message.hasSuffix("\n"), "\(arguments): \(message)")
    #expect(message.dropLast().contains("\n") == false, "\(arguments): \(message)")
    #expect(message.contains("'\(path)'"), "\(arguments): \(message)")
    for unclear in ["libarchive error", "' :", "  ", " \n"] {
      #expect(!message.contains(unclear), "\(arguments): \(message)")
    }
  }
}
