import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// The system layer (`Sources/DocumentPackage/Internals`): what its wrappers promise beyond libc.
@Suite("system layer")
struct SystemLayerTests {
  @Test("exists is false only when nothing is there, and throws for any other failure")
  func existsThrowsOnErrorsOtherThanNoSuchFile() throws {
    let temp = try TemporaryDirectory()
    let file = try temp.write("file.txt", "x")
    try FileManager.default.createSymbolicLink(atPath: temp.appending("dangling"), withDestinationPath: "nowhere")
    try FileManager.default.createSymbolicLink(atPath: temp.appending("loop"), withDestinationPath: "loop")
    #expect(try Syscalls.exists(FilePath(file)))
    #expect(try Syscalls.exists(FilePath(temp.appending("dangling"))))  // the link itself is there
    #expect(try !Syscalls.exists(FilePath(temp.appending("missing"))))
    // Not "absent": the path cannot be looked at (a permission error is the same case, but
    // tests may run as root, which permissions do not stop).
    #expect(throws: Errno.notDirectory) { try Syscalls.exists(FilePath(file + "/below")) }
    #expect(throws: Errno.tooManySymbolicLinkLevels) { try Syscalls.exists(FilePath(temp.appending("loop/below"))) }
    let tooLong = String(repeating: "n", count: 300)
    #expect(throws: Errno.fileNameTooLong) { try Syscalls.exists(FilePath(temp.appending(tooLong))) }
  }

  @Test("an atomic file appears whole on commit, and a failed write leaves nothing behind")
  func atomicFileCommitsOrLeavesNothing() throws {
    let temp = try TemporaryDirectory()
    let target = FilePath(temp.appending("out.txt"))
    try AtomicFile.write(to: target) { fd in
      let written = Array("new".utf8).withUnsafeBytes { bytes in
        Result { () throws(Errno) in try Syscalls.writeAll(fd, bytes) }
      }
      try written.get()
    }
    #expect(try String(contentsOfFile: target.string, encoding: .utf8) == "new")
    struct Stop: Error {}
    #expect(throws: Stop.self) { try AtomicFile.write(to: target) { _ in throw Stop() } }
    #expect(try String(contentsOfFile: target.string, encoding: .utf8) == "new")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path) == ["out.txt"])
  }

  @Test("temporary names are hidden, marked as ours, labelled and unique")
  func temporaryNames() {
    let name = TemporaryName.make("unpack")
    #expect(name.hasPrefix(".docpkg-unpack-"))
    #expect(TemporaryName.make("pack", for: "a.zip").hasPrefix(".a.zip.docpkg-pack-"))
    #expect(Set((0..<100).map { _ in TemporaryName.make("x") }).count == 100)
  }
}
