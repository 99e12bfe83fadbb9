import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

/// `PackageNode.open(location:)`: what `docpkg inspect`, `cat`, `diff` and `pack` accept as a package.
@Suite("PackageNode.open(location:)")
struct OpenLocationTests {
  @Test func opensADirectoryAnArchiveAndAVersion() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("Doc.pkg")
    for (arguments, text) in [(["--create"], "one\n"), ([], "two\n")] {
      let put = try Shell.docpkg(["put", package, "a.txt"] + arguments, input: Data(text.utf8))
      #expect(put.status == 0, "\(put.standardError)")
    }

    let directory = try PackageNode.open(location: package)
    #expect(directory.kind == .directory)
    #expect(try directory.node(at: "a.txt").contents() == Data("two\n".utf8))

    let zip = temp.appending("Doc.zip")
    try ArchivePacker.pack(directory, to: FilePath(zip), options: PackOptions(format: .zip))
    let archive = try PackageNode.open(location: zip)
    #expect(archive.name == "Doc.pkg")
    #expect(try archive.node(at: "a.txt").contents() == Data("two\n".utf8))

    // Version 2 is the state the second put replaced: a.txt "one".
    let version = try PackageNode.open(location: package + "@2")
    #expect(try version.node(at: "a.txt").contents() == Data("one\n".utf8))
  }

  @Test func anExistingPathWithAnAtIsAPathNotAVersion() throws {
    let temp = try TemporaryDirectory()
    try temp.write("me@2/notes.txt", "hello\n")
    let node = try PackageNode.open(location: temp.appending("me@2"))
    #expect(try node.node(at: "notes.txt").contents() == Data("hello\n".utf8))
  }

  @Test func nothingThereIsNoSuchEntryNamingThePath() throws {
    let temp = try TemporaryDirectory()
    let missing = temp.appending("Missing.pkg")
    #expect {
      try PackageNode.open(location: missing)
    } throws: { error in
      (error as? PackageError)?.code == .noSuchEntry && "\(error)".contains(missing)
    }
    #expect(PackageNode.versionReference("Doc.pkg@12")?.id == 12)
    #expect(PackageNode.versionReference("@12") == nil && PackageNode.versionReference("Doc.pkg@x") == nil)
  }
}
