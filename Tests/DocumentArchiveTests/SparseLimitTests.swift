import Foundation
import TestSupport
import Testing

/// Issue 37: a sparse tar entry's holes count toward the unpack limits, as the file's length is what `ls`, a
/// copy or a backup sees. A sparse 100 GB file in a 10 KB tar is refused with the size-limit message.
@Suite("sparse tar entries and the unpack limits", .enabled(if: Shell.has("tar") && Shell.has("python3")))
struct SparseLimitTests {
  func bash(_ script: String, in temp: TemporaryDirectory) throws {
    try Shell.run("bash", ["-c", script], directory: temp.path)
  }

  func expectRefused(_ arguments: [String], in temp: TemporaryDirectory, message: String) throws {
    let out = try temp.makeDirectory("out")
    let result = try Shell.docpkg(["unpack", temp.appending("s.tar"), "-o", out] + arguments)
    #expect(result.status == 1, "\(result.standardOutput)")
    #expect(result.standardError.contains(message), "\(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(entries(below: out) == [])
  }

  @Test("GNU tar --sparse of a 100 GB file of holes is refused by --max-size, and by the default ratio limit")
  func gnuSparseFile() throws {
    let temp = try TemporaryDirectory()
    try bash("mkdir S && truncate -s 100G S/big && tar --sparse --format=posix -cf s.tar S && rm S/big", in: temp)
    try expectRefused(["--max-size", "1048576"], in: temp, message: "archive expands to more than 1048576 bytes")
    try FileManager.default.removeItem(atPath: temp.appending("out"))
    try expectRefused([], in: temp, message: "archive expands to more than 68719476736 bytes")
    try FileManager.default.removeItem(atPath: temp.appending("out"))
    try expectRefused(
      ["--max-size", "200000000000"], in: temp, message: "archive expands more than 200 times its size")
  }

  @Test("a pax header saying GNU.sparse.size=1000000000000 over 5 bytes of data is refused by the size limit")
  func paxSparseSize() throws {
    let temp = try TemporaryDirectory()
    try bash(
      """
      python3 -c '
      import io, tarfile
      with tarfile.open("s.tar", "w", format=tarfile.PAX_FORMAT) as archive:
          info = tarfile.TarInfo("S/huge")
          info.size = 5
          info.pax_headers = {"GNU.sparse.size": "1000000000000", "GNU.sparse.numblocks": "1", "GNU.sparse.map": "0,5"}
          archive.addfile(info, io.BytesIO(b"hello"))'
      """, in: temp)
    try expectRefused([], in: temp, message: "archive expands to more than 68719476736 bytes")
  }
}
