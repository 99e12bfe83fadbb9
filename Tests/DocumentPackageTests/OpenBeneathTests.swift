import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Opens below a package's root follow no link in any component, with `openat2` and with the
/// component walk used where it is missing (``Syscalls/openBeneath(_:_:_:)``).
@Suite("opening below a package's root")
struct OpenBeneathTests {
  private typealias Open = @Sendable (CInt, FilePath, OpenOptions) throws(Errno) -> CInt

  private static let ways: [(String, Open)] = [
    ("openat2", { dirfd, path, options throws(Errno) in try Syscalls.openBeneath(in: dirfd, path, options) }),
    (
      "component by component",
      { dirfd, path, options throws(Errno) in
        try Syscalls.openComponentByComponent(in: dirfd, path, options.rawValue | OpenOptions.noFollow.rawValue)
      }
    ),
  ]

  @Test("a file below real folders opens; a link on the way or at the end is refused", arguments: [0, 1])
  func linksAreRefused(way: Int) throws {
    let (name, open) = Self.ways[way]
    let temp = try TemporaryDirectory()
    try temp.write("P/a/b/f.txt", "inside\n")
    try temp.write("outside/b/f.txt", "outside\n")
    try FileManager.default.createSymbolicLink(
      atPath: temp.appending("P/link"), withDestinationPath: temp.appending("outside"))
    try FileManager.default.createSymbolicLink(atPath: temp.appending("P/a/b/g.txt"), withDestinationPath: "f.txt")
    let root = try HeldDirectory(FilePath(temp.appending("P")))
    let fd = try open(root.fd, "a/b/f.txt", .readOnly)
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = try buffer.withUnsafeMutableBytes { bytes throws(Errno) in try Syscalls.readBytes(fd, into: bytes) }
    Syscalls.closeFile(fd)
    #expect(String(decoding: buffer[..<count], as: UTF8.self) == "inside\n", "\(name)")
    #expect(throws: Errno.improperLink, "\(name)") { _ = try open(root.fd, "link/b/f.txt", .readOnly) }
    #expect(throws: Errno.improperLink, "\(name)") { _ = try open(root.fd, "link", [.readOnly, .directory]) }
    #expect(throws: Errno.tooManySymbolicLinkLevels, "\(name)") { _ = try open(root.fd, "a/b/g.txt", .readOnly) }
    #expect(throws: Errno.improperLink, "\(name)") { _ = try open(root.fd, "../outside/b/f.txt", .readOnly) }
    #expect(throws: Errno.noSuchFileOrDirectory, "\(name)") { _ = try open(root.fd, "a/none.txt", .readOnly) }
  }
}
