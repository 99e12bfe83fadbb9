import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 10: an interrupted `pack` or `unpack` leaves no debris.
@Suite("interrupted pack and unpack")
struct InterruptionTests {
  /// A package with one file large enough to be read in several chunks.
  func makePackage(in temp: TemporaryDirectory) throws -> PackageNode {
    let package = try temp.makeDirectory("Big.pkg")
    _ = try temp.write("Big.pkg/a.bin", Data(repeating: 1, count: 3 << 20))
    _ = try temp.write("Big.pkg/b.txt", "b")
    return try PackageNode(contentsOf: FilePath(package))
  }

  @Test(
    "a cancelled pack throws `cancelled`, and leaves neither OUT nor a temporary beside it",
    arguments: [ArchiveFormat.zip, .tarGzip])
  func cancelledPack(format: ArchiveFormat) throws {
    let temp = try TemporaryDirectory()
    let root = try makePackage(in: temp)
    let out = try temp.makeDirectory("out")
    let cancellation = ArchiveCancellation()
    cancellation.cancel()
    let error = #expect(throws: PackageError.self) {
      try ArchivePacker.pack(
        root, to: FilePath(out + "/Big.\(format.rawValue)"), options: PackOptions(format: format),
        cancellation: cancellation)
    }
    #expect(error?.code == .cancelled)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
  }

  @Test("a pack that replaces OUT leaves only the new OUT, and one that fails leaves the old one")
  func packReplacesWithoutTemporaries() throws {
    let temp = try TemporaryDirectory()
    let root = try makePackage(in: temp)
    let out = try temp.makeDirectory("out")
    let archive = try temp.write("out/Big.zip", "old")
    try ArchivePacker.pack(root, to: FilePath(archive), options: PackOptions(format: .zip))
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["Big.zip"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: archive)).count > 3 << 10)
    let cancellation = ArchiveCancellation()
    cancellation.cancel()
    let before = try Data(contentsOf: URL(fileURLWithPath: archive))
    #expect(throws: PackageError.self) {
      try ArchivePacker.pack(
        root, to: FilePath(archive), options: PackOptions(format: .zip), cancellation: cancellation)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["Big.zip"])
  }

  @Test("a cancelled unpack throws `cancelled` and leaves DEST as it was")
  func cancelledUnpack() throws {
    let temp = try TemporaryDirectory()
    let root = try makePackage(in: temp)
    let archive = temp.appending("Big.zip")
    try ArchivePacker.pack(root, to: FilePath(archive), options: PackOptions(format: .zip))
    let dest = try temp.makeDirectory("dest")
    let cancellation = ArchiveCancellation()
    cancellation.cancel()
    let error = #expect(throws: PackageError.self) {
      try ArchiveUnpacker.unpack(FilePath(archive), into: FilePath(dest), cancellation: cancellation)
    }
    #expect(error?.code == .cancelled)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dest) == [])
  }

  @Test("unpack removes the temporary folders of unpacks that are gone, never one still locked by its unpack")
  func unpackRemovesAbandonedFolders() throws {
    let temp = try TemporaryDirectory()
    let root = try makePackage(in: temp)
    let archive = temp.appending("Big.zip")
    try ArchivePacker.pack(root, to: FilePath(archive), options: PackOptions(format: .zip))
    let dest = try temp.makeDirectory("dest")
    _ = try temp.write("dest/.docpkg-unpack-abandoned/Big.pkg/a.bin", "partial")
    _ = try temp.makeDirectory("dest/.docpkg-unpack-running")
    _ = try temp.write("dest/.docpkg-other", "not ours to remove")
    // A running unpack holds an exclusive flock on its folder.
    let running = open(dest + "/.docpkg-unpack-running", O_RDONLY | O_DIRECTORY)
    #expect(running >= 0)
    defer { close(running) }
    #expect(flock(running, LOCK_EX) == 0)
    try ArchiveUnpacker.unpack(FilePath(archive), into: FilePath(dest))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dest).sorted() == [
        ".docpkg-other", ".docpkg-unpack-running", "Big.pkg",
      ])
  }

  /// Kills `docpkg pack`/`unpack` of a generated package at random moments (see Tests/Scripts/archive-kill-test.py;
  /// `make crash-test` runs it on 100 MB).
  @Test(.enabled(if: Shell.has("python3")))
  func killedAtRandomMomentsNothingIsLeftBehind() throws {
    let script = Fixtures.script("archive-kill-test.py")
    let result = try Shell.run(
      "python3", [script, "--docpkg", Shell.docpkgPath, "--size-mb", "8", "--runs", "2"], check: false)
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains("\n0 failures\n"))
  }
}
