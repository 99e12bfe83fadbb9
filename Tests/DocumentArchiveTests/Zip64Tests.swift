import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive

/// A package with a 4.3 GB file packs to zip64 that `unzip -t`, Python's zipfile and our own reader and
/// unpacker read back byte for byte. The file is sparse, so it costs no disk, but the archive and the unpacked
/// copy are real: the test needs about 10 GB free in the temporary folder and is skipped (with a note) without it.
@Suite("zip64: a file above 4 GiB", .serialized)
struct Zip64Tests {
  // Just above 4 GiB (4,294,967,296): every byte costs a write and three reads.
  static let bigSize: Int64 = 4_300_000_000
  static let markerOffset: UInt64 = 4_299_999_000

  static var hasRoom: Bool {
    let attributes = try? FileManager.default.attributesOfFileSystem(forPath: NSTemporaryDirectory())
    return ((attributes?[.systemFreeSize] as? NSNumber)?.int64Value ?? 0) > 11_000_000_000
  }

  /// Stored (level 0): sizes and the next entry's offset above 4 GiB, in the zip64 extra fields. (The deflated
  /// case, sizes above 4 GiB with a small compressed size, runs zlib over 4.3 GB to write and three times more to
  /// read back: minutes, so it is not part of the suite.)
  @Test(.enabled(if: hasRoom, "needs about 10 GB free in the temporary folder"))
  func storedArchiveReadsBackEverywhere() throws {
    let temp = try TemporaryDirectory()
    let big = try temp.write("Huge.pkg/a-big.bin", Data())
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
    try handle.truncate(atOffset: UInt64(Self.bigSize))
    try handle.seek(toOffset: Self.markerOffset)
    try handle.write(contentsOf: Data("tail marker".utf8))
    try handle.close()
    let small = try temp.write("Huge.pkg/b-small.txt", "after the big one\n")

    let zip = temp.appending("huge.zip")
    try ArchivePacker.pack(
      PackageNode(contentsOf: FilePath(temp.appending("Huge.pkg"))), to: FilePath(zip),
      options: PackOptions(format: .zip, level: 0))

    try Shell.run("unzip", ["-tq", zip])
    let python = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1]) as z:
          big = z.getinfo("Huge.pkg/a-big.bin")
          assert big.file_size == \(Self.bigSize), big.file_size
          assert z.read("Huge.pkg/b-small.txt") == b"after the big one\\n"
          with z.open(big) as f:
              f.seek(\(Self.markerOffset))
              assert f.read(11) == b"tail marker"
      """
    try Shell.run("python3", ["-c", python, zip])

    let inPlace = try ArchivePackage.open(FilePath(zip))
    #expect(try inPlace.node(at: "b-small.txt").contents() == Data("after the big one\n".utf8))
    #expect(try inPlace.node(at: "a-big.bin").size == Self.bigSize)

    let out = temp.appending("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let limits = UnpackLimits(maxCompressionRatio: 1_000_000)
    #expect(
      try ArchiveUnpacker.unpack(FilePath(zip), into: FilePath(out), options: UnpackOptions(limits: limits)) == [
        "Huge.pkg"
      ])
    // The unpacker checks every byte against the entry's CRC-32; the size and the marker show it is the right file.
    let unpacked = out + "/Huge.pkg/a-big.bin"
    #expect(
      (try FileManager.default.attributesOfItem(atPath: unpacked)[.size] as? NSNumber)?.int64Value == Self.bigSize)
    let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: unpacked))
    defer { try? reader.close() }
    try reader.seek(toOffset: Self.markerOffset)
    #expect(try reader.read(upToCount: 11) == Data("tail marker".utf8))
    try Shell.run("cmp", [small, out + "/Huge.pkg/b-small.txt"])
  }
}
