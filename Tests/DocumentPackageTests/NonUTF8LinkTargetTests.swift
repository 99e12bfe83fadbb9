import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

#if canImport(Glibc)
import Glibc
#endif

/// A symbolic link whose destination is not UTF-8 (`caf<0xE9>`, Latin-1 é), as another program may leave in a package:
/// every path that writes the link again (a save that rebuilds its folder or changes the link's time, a copy where a
/// hard link is refused, a version restored, a save-as) writes the same bytes, never U+FFFD.
@Suite("Symbolic links whose destination is not UTF-8")
struct NonUTF8LinkTargetTests {
  /// The destination's bytes: `caf`, then é in Latin-1.
  static let target: [UInt8] = Array("caf".utf8) + [0xE9]

  /// `P.pkg` with `a.txt` and `sub/link` (to ``target``), made with the system call; the package's path.
  private func makePackage(in folder: String) throws -> String {
    try FileManager.default.createDirectory(atPath: folder + "/P.pkg/sub", withIntermediateDirectories: true)
    try Data("a\n".utf8).write(to: URL(fileURLWithPath: folder + "/P.pkg/a.txt"))
    let bytes = Self.target.map { CChar(bitPattern: $0) } + [0]
    #expect(symlink(bytes, folder + "/P.pkg/sub/link") == 0)
    return folder + "/P.pkg"
  }

  /// The bytes of the link at `path`, as the file system holds them.
  private func linkBytes(_ path: String) throws -> [UInt8] {
    try Syscalls.readLinkBytes(at: FilePath(path))
  }

  @Test("the model holds the bytes, as names are held, with the link's size its byte count")
  func theModelHoldsTheBytes() throws {
    let temp = try TemporaryDirectory()
    let link = try PackageNode(contentsOf: FilePath(try makePackage(in: temp.path))).node(at: "sub/link")
    #expect(link.symbolicLinkDestination == "caf\u{F7E9}")
    #expect(link.size == 4)
    #expect(link.symbolicLinkDestination.escapingName == "caf\\xE9")
  }

  @Test("a save that rebuilds the link's folder, or sets the link's time, keeps its bytes")
  func savesKeepTheBytes() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp.path)
    let file = try PackageFile(at: FilePath(package))
    try file.root.setFile(at: "sub/new.txt", contents: Data("new\n".utf8))
    try file.save()
    #expect(try linkBytes(package + "/sub/link") == Self.target)
    try file.root.setModificationTime(FileTime(seconds: 1_000_000), at: "sub/link")
    try file.save()
    #expect(try linkBytes(package + "/sub/link") == Self.target)
    #expect(try PackageFile(at: FilePath(package)).root.node(at: "sub/link").size == 4)
  }

  /// U+F780 stands for byte 0x80 in the model; a destination that spells it in UTF-8 is carried as its three bytes.
  @Test("a destination spelling a raw-byte scalar in UTF-8 keeps its bytes too")
  func aLookalikeDestinationKeepsItsBytes() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp.path)
    #expect(symlink("x\u{F780}", package + "/lookalike") == 0)
    let file = try PackageFile(at: FilePath(package))
    #expect(try file.root.node(at: "lookalike").size == 4)
    try file.root.setModificationTime(FileTime(seconds: 1_000_000), at: "lookalike")
    try file.save()
    #expect(try linkBytes(package + "/lookalike") == Array("x\u{F780}".utf8))
  }

  @Test("a version kept and restored gives the link its bytes back")
  func aRestoredVersionKeepsTheBytes() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp.path)
    let file = try PackageFile(at: FilePath(package))
    try file.root.setSymbolicLinkDestination("other", at: "sub/link")
    try file.save()
    #expect(try linkBytes(package + "/sub/link") == Array("other".utf8))
    #expect(try file.versionStore().tree(of: 1).node(at: "sub/link").symbolicLinkDestination == "caf\u{F7E9}")
    try file.restoreVersion(1)
    #expect(try linkBytes(package + "/sub/link") == Self.target)
  }

  /// A save-as beside the package carries the link by a hard link; to another file system (`/dev/shm`, a tmpfs,
  /// where the temporary folder is not), a link is refused and the link is made again from its bytes.
  @Test(
    "a save-as keeps the bytes, by hard link or by a new link where hard links are refused",
    arguments: [false, true])
  func saveAsKeepsTheBytes(otherFileSystem: Bool) async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp.path)
    var destination = temp.appending("Copy.pkg")
    var other: String?
    if otherFileSystem {
      let device = { (path: String) in try? FileManager.default.attributesOfItem(atPath: path)[.systemNumber] as? Int }
      guard let shm = device("/dev/shm"), shm != device(temp.path) else { return }
      other = "/dev/shm/helper-nonutf8-link-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
      try FileManager.default.createDirectory(atPath: other!, withIntermediateDirectories: false)
      destination = other! + "/Copy.pkg"
    }
    defer { if let other { try? FileManager.default.removeItem(atPath: other) } }
    let document = try await Document(contentsOf: FilePath(package))
    _ = try await document.save(to: FilePath(destination))
    try await document.close()
    #expect(try linkBytes(destination + "/sub/link") == Self.target)
  }
}
