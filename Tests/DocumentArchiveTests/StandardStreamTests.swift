import Foundation
import TestSupport
import Testing

/// Issue 15: `pack -o -` writes the archive to standard output, `unpack -` reads it from standard
/// input, through real pipes into and from the real peer tools.
@Suite("pack to standard output, unpack from standard input", .enabled(if: Shell.has("bsdtar") && Shell.has("unzip")))
struct StandardStreamTests {
  /// The Notes fixture plus a 3 MiB file: big enough to be streamed (so a zip on a pipe needs data descriptors).
  func makePackage(in temp: TemporaryDirectory) throws -> String {
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    var bytes = [UInt8](repeating: 0, count: 3 << 20)
    var state: UInt64 = 7
    for index in bytes.indices {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      bytes[index] = index % 3 == 0 ? UInt8(truncatingIfNeeded: state >> 33) : 65
    }
    _ = try temp.write("Notes.mydoc/Images/big.bin", Data(bytes))
    return package
  }

  func bash(_ script: String, in temp: TemporaryDirectory) throws -> Shell.Output {
    try Shell.run(
      "bash", ["-o", "pipefail", "-c", script], environment: ["DOCPKG": Shell.docpkgPath], directory: temp.path,
      check: false)
  }

  @Test(
    "pack -o - | bsdtar -tf - lists the package (zip by default, and each tar format)",
    arguments: [[], ["--format", "tar"], ["--format", "tar.gz"], ["--format", "tar.xz"], ["--format", "zip"]])
  func packToPipe(format: [String]) throws {
    let temp = try TemporaryDirectory()
    _ = try makePackage(in: temp)
    let flags = format.joined(separator: " ")
    let result = try bash("\"$DOCPKG\" pack Notes.mydoc -o - \(flags) | bsdtar -tf -", in: temp)
    #expect(result.status == 0, "\(result.standardError)")
    let names = Set(result.standardOutput.split(separator: "\n").map { String($0) })
    #expect(names.contains("Notes.mydoc/Images/big.bin") && names.contains("Notes.mydoc/Index.json"), "\(names)")
    #expect(!FileManager.default.fileExists(atPath: temp.appending("-")))
  }

  @Test("a zip written to a pipe is whole: unzip tests it and the round trip through unpack - is exact")
  func zipThroughPipes() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    _ = try temp.makeDirectory("out")
    let packed = try bash("\"$DOCPKG\" pack Notes.mydoc -o - | cat > piped.zip && unzip -tq piped.zip", in: temp)
    #expect(packed.status == 0, "\(packed.standardOutput) \(packed.standardError)")
    let unpacked = try bash("cat piped.zip | \"$DOCPKG\" unpack - -o out", in: temp)
    #expect(unpacked.status == 0, "\(unpacked.standardError)")
    #expect(unpacked.standardOutput == "out/Notes.mydoc\n")
    #expect(try Listing.of(temp.appending("out/Notes.mydoc")) == Listing.of(package))
    #expect(entries(below: temp.appending("out")).allSatisfy { !$0.hasPrefix(".docpkg") })
  }

  @Test(
    "unpack - reads a compressed tar from a pipe, and refuses a damaged stream leaving nothing",
    .enabled(if: Shell.has("gzip")))
  func tarFromPipe() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    _ = try temp.makeDirectory("out")
    _ = try temp.makeDirectory("bad")
    try Shell.docpkgChecked(["pack", package, "-o", temp.appending("n.tar.gz")])
    let result = try bash("gzip -dc n.tar.gz | gzip -1 | \"$DOCPKG\" unpack - -o out", in: temp)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try Listing.of(temp.appending("out/Notes.mydoc")) == Listing.of(package))
    let truncated = try bash("head -c 200000 n.tar.gz | \"$DOCPKG\" unpack - -o bad", in: temp)
    #expect(truncated.status == 1)
    #expect(truncated.standardError.contains("standard input"), "\(truncated.standardError)")
    #expect(entries(below: temp.appending("bad")) == [])
  }

  @Test(
    "pack -o - refuses to write an archive to a terminal, and writes no file named '-'",
    .enabled(if: Shell.has("python3")))
  func refusesTerminal() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let result = try Shell.docpkgInTerminal(["pack", package, "-o", "-"])
    #expect(result.status == 64)
    #expect(result.standardOutput.contains("refusing to write an archive to a terminal"), "\(result.standardOutput)")
    #expect(!FileManager.default.fileExists(atPath: "-"))
  }

  /// A writer of `megabytes` MiB (zeros after `prefix`, a shell `printf` string) to standard output that
  /// stops when the reader goes and leaves the count of bytes it handed over in the file `sent`.
  func sender(_ prefix: String, megabytes: Int) -> String {
    """
    { printf '\(prefix)'; python3 -c '
    import sys
    sent = 0
    try:
        for _ in range(\(megabytes * 16)):
            sys.stdout.buffer.write(bytes(65536)); sys.stdout.buffer.flush(); sent += 65536
    except BrokenPipeError:
        pass
    open("sent", "w").write(str(sent))' 2>/dev/null; }
    """
  }

  @Test("unpack - refuses a stream of zeros after its first bytes, not after copying all of it")
  func refusesNonArchiveEarly() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.makeDirectory("out")
    let result = try bash("\(sender("", megabytes: 64)) | \"$DOCPKG\" unpack - -o out", in: temp)
    #expect(result.status == 1)
    #expect(result.standardError.contains("not a zip or tar archive: 'standard input'"), "\(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    let sent = Int(try String(contentsOfFile: temp.appending("sent"), encoding: .utf8)) ?? .max
    #expect(sent < 8 << 20, "unpack read \(sent) bytes of zeros")
    #expect(entries(below: temp.appending("out")) == [])
  }

  @Test("unpack - stops copying a stream larger than the size limits allow, with the size-limit message")
  func boundsTheSpool() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.makeDirectory("out")
    // A gzip header (deflate, no flags), then zeros: an archive as far as its first bytes show.
    let result = try bash(
      "\(sender("\\x1f\\x8b\\x08", megabytes: 64)) | \"$DOCPKG\" unpack - -o out --max-size 1000 --max-entries 10",
      in: temp)
    #expect(result.status == 1)
    #expect(result.standardError.contains("archive is larger than"), "\(result.standardError)")
    #expect(result.standardError.contains("'standard input'"), "\(result.standardError)")
    let sent = Int(try String(contentsOfFile: temp.appending("sent"), encoding: .utf8)) ?? .max
    #expect(sent < 8 << 20, "unpack read \(sent) bytes")
    #expect(entries(below: temp.appending("out")) == [])
  }
}
