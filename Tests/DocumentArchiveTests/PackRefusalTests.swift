import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// What `pack` writes, `unpack` reads: what unpack would refuse is left out when packing, one line each.
@Suite("pack leaves out what unpack refuses")
struct PackRefusalTests {
  @Test(
    "a symbolic link that is absolute or leaves the package is left out by pack, named on one line, in every format",
    arguments: [
      ["sub/abs", "/etc/hosts", "its destination is absolute"],
      ["esc", "../../outside", "it points outside the package"],
    ], ["zip", "tar", "tar.gz"])
  func unsafeLinkLeftOut(_ link: [String], format: String) throws {
    let (path, destination, reason) = (link[0], link[1], link[2])
    let temp = try TemporaryDirectory()
    try temp.write("L.mydoc/a.txt", "x\n")
    try temp.write("L.mydoc/sub/ok.txt", "y\n")
    try FileManager.default.createSymbolicLink(
      atPath: temp.appending("L.mydoc/" + path), withDestinationPath: destination)
    try FileManager.default.createSymbolicLink(
      atPath: temp.appending("L.mydoc/sub/up"), withDestinationPath: "../a.txt")
    let archive = temp.appending("L.\(format)")
    let result = try Shell.docpkg(["pack", temp.appending("L.mydoc"), "-o", archive])
    #expect(result.status == 0)
    #expect(
      result.standardError
        == "docpkg: skipped 'L.mydoc/\(path)': it links to '\(destination)': \(reason) (not packed: unpack would refuse it)\n"
    )
    // What pack writes, unpack reads: everything but the link.
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out])
    #expect(entries(below: out + "/L.mydoc") == ["a.txt", "sub", "sub/ok.txt", "sub/up"])
    // The library says so.
    let package = try PackageNode(contentsOf: FilePath(temp.appending("L.mydoc")))
    let report = try ArchivePacker.pack(
      package, to: FilePath(temp.appending("again.\(format)")),
      options: PackOptions(format: ArchiveFormat(name: format)!))
    #expect(
      report.skipped == [PackReport.Skipped(path: "L.mydoc/" + path, reason: "it links to '\(destination)': \(reason)")]
    )
  }

  @Test("links that stay inside the package are packed and unpacked")
  func safeLinksPacked() throws {
    let temp = try TemporaryDirectory()
    try temp.write("L.mydoc/a.txt", "x\n")
    try FileManager.default.createSymbolicLink(
      atPath: temp.appending("L.mydoc/up"), withDestinationPath: "sub/../a.txt")
    try FileManager.default.createSymbolicLink(atPath: temp.appending("L.mydoc/self"), withDestinationPath: ".")
    let archive = temp.appending("L.tar")
    try Shell.docpkgChecked(["pack", temp.appending("L.mydoc"), "-o", archive])
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out])
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/L.mydoc/up") == "sub/../a.txt")
  }

  @Test("pack leaves out FIFOs and sockets, as zip does, naming each on one line, and still makes the archive")
  func specialFilesSkippedAndNamed() throws {
    let temp = try TemporaryDirectory()
    try temp.write("S.mydoc/a.txt", "x\n")
    try temp.write("S.mydoc/sub/b.txt", "y\n")
    try Shell.run("mkfifo", [temp.appending("S.mydoc/sub/pipe")])
    try Shell.run(
      "python3",
      ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", temp.appending("S.mydoc/sock")])
    let archive = temp.appending("S.tar")
    let result = try Shell.docpkg(["pack", temp.appending("S.mydoc"), "-o", archive])
    #expect(result.status == 0)
    let note = "(not packed: unpack would refuse it)"
    #expect(
      result.standardError
        == "docpkg: skipped 'S.mydoc/sock': it is a socket \(note)\ndocpkg: skipped 'S.mydoc/sub/pipe': it is a FIFO \(note)\n"
    )
    #expect(
      try Shell.run("tar", ["-tf", archive]).standardOutput
        == "S.mydoc/\nS.mydoc/a.txt\nS.mydoc/sub/\nS.mydoc/sub/b.txt\n")
    // The library says so too.
    let package = try PackageNode(contentsOf: FilePath(temp.appending("S.mydoc")))
    let report = try ArchivePacker.pack(
      package, to: FilePath(temp.appending("S.zip")), options: PackOptions(format: .zip))
    #expect(report.skipped.map(\.path) == ["S.mydoc/sock", "S.mydoc/sub/pipe"])
    #expect(report.skipped.map(\.reason) == ["it is a socket", "it is a FIFO"])
  }
}
