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

  /// A path past PATH_MAX (40 folders of 200-byte names) opens by runs of components, one `openat2` each, not one
  /// `openat` per component (a check of a package 3,000 folders deep made 2.4 million: 6.1 s, now 2.0 s), at the
  /// same folder as the component walk; a link on the way, past the first run, is still refused.
  @Test func aPathPastPathMaxOpensByRunsAndRefusesALinkOnTheWay() throws {
    let temp = try TemporaryDirectory()
    try temp.write("P/.keep", "")
    let root = try HeldDirectory(FilePath(temp.appending("P")))
    var current = try Syscalls.openDirectory(in: root.fd, RawName("."))
    var real: [String] = []
    var linked: [String] = []
    for depth in 0..<40 {
      let name = String(format: "%03d", depth) + String(repeating: "d", count: 197)
      try Syscalls.makeDirectory(in: current, RawName(name))
      if depth == 30 { try Syscalls.makeSymbolicLink(in: current, RawName("link"), destination: name) }
      let next = try Syscalls.openDirectory(in: current, RawName(name))
      Syscalls.closeFile(current)
      current = next
      real.append(name)
      linked.append(depth == 30 ? "link" : name)
    }
    Syscalls.closeFile(current)
    let path = FilePath(real.joined(separator: "/"))
    #expect(path.string.utf8.count > 4096)
    let fd = try Syscalls.openRunByRun(in: root.fd, path, OpenOptions([.readOnly, .directory, .noFollow]).rawValue)
    let opened = try Syscalls.status(of: fd)
    Syscalls.closeFile(fd)
    let walked = try Syscalls.openComponentByComponent(
      in: root.fd, path, OpenOptions([.readOnly, .directory, .noFollow]).rawValue)
    #expect(try Syscalls.status(of: walked).inode == opened.inode)
    Syscalls.closeFile(walked)
    #expect(throws: Errno.improperLink) {
      _ = try Syscalls.openBeneath(in: root.fd, FilePath(linked.joined(separator: "/")), [.readOnly, .directory])
    }
  }
}
