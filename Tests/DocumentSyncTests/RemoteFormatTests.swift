import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// The remote layout's format marker and the local side's errors (no server needed).
@Suite struct RemoteFormatTests {
  static let tree = String(repeating: "ab", count: 32)

  @Test func aHeadOfTheCurrentFormatReadsBack() throws {
    let head = RemoteHead(tree: Self.tree, parent: nil, date: Date(timeIntervalSince1970: 1_764_000_000))
    #expect(String(decoding: head.encoded(), as: UTF8.self).hasPrefix("docpkg-sync-head 2\n"))
    #expect(try RemoteHead(decoding: head.encoded(), key: "p/head") == head)
  }

  /// A remote an earlier release pushed (trees without times) is refused with one line saying what to do, never
  /// misread.
  @Test func aRemoteOfTheOlderFormatIsRefusedWithOneLine() throws {
    let old = Data("docpkg-sync-head 1\ntree \(Self.tree)\nparent -\ndate 1764000000\n".utf8)
    let error = try #require(throws: SyncError.self) { try RemoteHead(decoding: old, key: "p/head") }
    #expect(error.code == .remote)
    #expect(
      error.description
        == "the remote's layout is an older docpkg's (remote format 1; this docpkg reads format 2 only): push to a "
        + "new prefix, or use that docpkg; head 'p/head'")
    #expect(!error.description.contains("\n"))
    let newer = Data("docpkg-sync-head 3\ntree \(Self.tree)\n".utf8)
    #expect(throws: SyncError.self) { try RemoteHead(decoding: newer, key: "p/head") }
  }

  /// A local file that cannot be written is a `PackageError` naming its path, not a remote error.
  @Test func aSyncFolderThatCannotBeWrittenFailsWithAPackageErrorNamingThePath() throws {
    let dir = try TemporaryDirectory("sync-local-error")
    try dir.write("file", "not a directory\n")
    let folder = SyncFolder(packagePath: FilePath(dir.appending("file/P.mydoc")))
    let error = try #require(throws: PackageError.self) {
      try folder.add(Remote(name: "origin", url: "s3://bucket/p", endpoint: "http://127.0.0.1:1"))
    }
    #expect(error.description.contains(dir.appending("file/.P.mydoc.docpkg-sync")))
  }
}
