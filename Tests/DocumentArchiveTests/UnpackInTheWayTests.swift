import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 15: an unpack whose result is already in the destination fails before it extracts
/// anything, and the library's error names no CLI flag (the tool adds its `--force` hint).
@Suite("unpack into a folder where the result exists")
struct UnpackInTheWayTests {
  /// A zip of a package whose big file's data is damaged half-way: an unpack that extracted the
  /// archive before looking at the destination would fail on the damage, not on the name.
  func makeDamagedZip(in temp: TemporaryDirectory) throws -> String {
    let package = try temp.makeDirectory("Big.pkg")
    var bytes = [UInt8](repeating: 0, count: 4 << 20)
    for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
    _ = try temp.write("Big.pkg/a.bin", Data(bytes))
    let zip = temp.appending("Big.zip")
    try ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(package)), to: FilePath(zip), options: PackOptions(format: .zip, level: 0))
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: zip))
    try handle.seek(toOffset: 2 << 20)
    let byte = try handle.read(upToCount: 1)!
    try handle.seek(toOffset: 2 << 20)
    handle.write(Data([byte[0] ^ 0xFF]))
    try handle.close()
    return zip
  }

  @Test("the library refuses at the first entry (before the damage), with no CLI flag in the message")
  func libraryRefusesFirst() throws {
    let temp = try TemporaryDirectory()
    let zip = try makeDamagedZip(in: temp)
    let out = try temp.makeDirectory("out")
    _ = try temp.write("out/Big.pkg/old.txt", "old")
    let error = #expect(throws: PackageError.self) {
      try ArchiveUnpacker.unpack(FilePath(zip), into: FilePath(out))
    }
    #expect(error?.code == .nameTaken, "\(String(describing: error))")
    #expect(error?.description.contains("Big.pkg") == true)
    #expect(error?.description.contains("--force") == false, "\(String(describing: error))")
    #expect(entries(below: out) == ["Big.pkg", "Big.pkg/old.txt"])
  }

  @Test("docpkg unpack refuses at once and adds its own --force hint")
  func toolAddsHint() throws {
    let temp = try TemporaryDirectory()
    let zip = try makeDamagedZip(in: temp)
    let out = try temp.makeDirectory("out")
    _ = try temp.write("out/Big.pkg/old.txt", "old")
    let result = try Shell.docpkg(["unpack", zip, "-o", out])
    #expect(result.status == 1)
    #expect(
      result.standardError.contains("already exists") && result.standardError.contains("(use --force to replace it)"),
      "\(result.standardError)")
    #expect(entries(below: out) == ["Big.pkg", "Big.pkg/old.txt"])
  }
}
