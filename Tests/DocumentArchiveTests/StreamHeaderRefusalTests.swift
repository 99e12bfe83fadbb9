import Foundation
import TestSupport
import Testing

/// Outsider attack on issue 37 (F14): `unpack -` of a stream whose first header is damaged copied the stream until
/// it passed the size limit (with the defaults, 64 GiB and 2 GB of header allowance) before refusing it. The first
/// 512 bytes show the damage: it is refused there, for each format a stream is recognised as (tar, gzip, zip,
/// xz, zstd). The streams here go on without end (`yes`), and the limits are kept small so that a copy to the
/// limit stays small too.
@Suite("unpack - refuses a damaged first header at once", .enabled(if: Shell.has("python3") && Shell.has("yes")))
struct StreamHeaderRefusalTests {
  @Test(arguments: [
    // A tar of Python's with a byte of its first name changed after the checksum was written.
    ("tar", "its first tar header's checksum does not match"),
    // gzip's magic with method 9, which is not deflate.
    ("gzip", "its gzip header is damaged (not deflate, or reserved flags)"),
    // A zip of Python's whose first local header's method became 200.
    ("zip", "its first zip local header names compression method 200, which no zip defines"),
    // An xz stream of Python's with a flag byte changed after its CRC-32 was written.
    ("xz", "its xz stream header is damaged (reserved flags, or their CRC-32 does not match)"),
    // A zstd frame header with its reserved bit set.
    ("zstd", "its zstd frame header is damaged (its reserved bit is set)"),
    // A zstd frame header asking for a 256 MiB window, as `zstd --long=28` writes (libarchive refuses it).
    ("zstd-window", "its zstd frame needs a window of 256 MiB, over the 128 MiB zstd decodes by default"),
  ])
  func aDamagedFirstHeaderIsRefusedBeforeTheStreamIsCopied(kind: String, reason: String) throws {
    let temp = try TemporaryDirectory()
    let head = temp.appending("head")
    let script = """
      import io, sys, tarfile
      if sys.argv[2] == "tar":
          buffer = io.BytesIO()
          with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as t:
              info = tarfile.TarInfo("P/a.txt")
              info.size = 2
              t.addfile(info, io.BytesIO(b"a\\n"))
          data = bytearray(buffer.getvalue())
          data[2] = ord("X")
      elif sys.argv[2] == "zip":
          import zipfile
          buffer = io.BytesIO()
          with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
              z.writestr("P/a.txt", "a\\n" * 300)
          data = bytearray(buffer.getvalue())
          data[8:10] = (200).to_bytes(2, "little")
      elif sys.argv[2] == "xz":
          import lzma
          data = bytearray(lzma.compress(b"a\\n" * 300))
          data[7] = 10  # SHA-256 checks instead of CRC-64: the stored CRC-32 no longer matches
      elif sys.argv[2] == "zstd":
          data = bytearray(b"\\x28\\xb5\\x2f\\xfd\\x08\\x58" + bytes(506))
      elif sys.argv[2] == "zstd-window":
          data = bytearray(b"\\x28\\xb5\\x2f\\xfd\\x00\\x90" + bytes(506))
      else:
          data = bytearray(b"\\x1f\\x8b\\x09\\x00" + bytes(508))
      open(sys.argv[1], "wb").write(data[:512])
      """
    try Shell.run("python3", ["-c", script, head, kind])
    let limits = "--max-size 20000000 --max-entries 10"
    let result = try Shell.run(
      "bash",
      [
        "-c", "{ cat \"$1\"; yes; } | \"$0\" unpack - -o \"$2\" \(limits) --quiet", Shell.docpkgPath, head,
        temp.appending("out"),
      ], check: false)
    #expect(result.status == 1)
    #expect(
      result.standardError == "docpkg: error: cannot read archive 'standard input' (\(reason))\n",
      "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: temp.appending("out")))
  }
}
