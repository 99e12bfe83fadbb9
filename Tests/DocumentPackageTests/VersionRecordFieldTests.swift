import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Found by `fuzz-records` (Tests/Fuzz): the version store split its records' lines into fields at Characters, and
/// a space followed by a combining mark or a variation selector is one Character, so a field beginning with one (a
/// name valid on any file system) stayed joined to the field before it and the line did not read: the version
/// holding such a name could not be read, a conflict version naming one was not listed.
@Suite("Version records: fields beginning with a combining mark")
struct VersionRecordFieldTests {
  /// A name beginning with a combining mark.
  private let name = "\u{301}e.txt"

  @Test func aVersionKeepsAFileWhoseNameBeginsWithACombiningMark() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    try document.root.setFile(at: name, contents: Data("one\n".utf8))
    try document.save()
    try document.root.setFile(at: name, contents: Data("two\n".utf8))
    try document.save()
    let store = try document.versionStore()
    #expect(try store.versions().map(\.id) == [1, 2])
    #expect(try store.tree(of: 2).node(at: name).contents() == Data("one\n".utf8))
  }

  @Test func aConflictVersionKeepsAPathThatBeginsWithACombiningMark() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    let store = try document.versionStore()
    let id = try store.keep(document.root, origin: .conflict, conflictPaths: [name]).id
    #expect(try store.versions().first { $0.id == id }?.conflictPaths == [name])
  }

  /// The input `fuzz-records` stopped at: `?` (selector 7: a tree line made for the name that follows) and the name
  /// "\u{FE0F}a", beginning with VARIATION SELECTOR-16; the line written for it must read as the same entry.
  @Test func theFuzzInputsTreeLineReads() throws {
    let input = try Data(contentsOf: Fixtures.fuzzRegression("records-tree-line-name-begins-with-variation-selector"))
    let name = String(decoding: input.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
    let hash = String(repeating: "ab", count: 32)
    let entry = TreeEntry(
      kind: .file, permissions: [], time: FileTime(seconds: 1, nanoseconds: 5), size: 3,
      reference: hash, name: name)
    let read = try #require(TreeEntry(line: Substring(entry.line.dropLast())))
    #expect(read.name == name)
  }
}
