import DocumentPackage
import Foundation
import SystemPackage
import Testing

/// `PackageDifference` as JSON (the schema of `docpkg diff --json`) and as text.
@Suite("PackageDifference coding and descriptions")
struct DifferenceCodingTests {
  typealias Change = PackageDifference.Change
  typealias Entry = PackageDifference.Entry

  static let file = Entry(
    kind: .file, size: 4, permissions: [.ownerReadWrite, .groupRead, .otherRead],
    modificationTime: FileTime(seconds: 1_700_000_000, nanoseconds: 5), sha256: String(repeating: "ab", count: 32))
  static let link = Entry(
    kind: .symlink, size: 5, permissions: [.ownerReadWriteExecute], symbolicLinkDestination: "a/b")
  static let patch = TextPatch(from: Array("one\ntwo\nthree".utf8), to: Array("one\n2\nthree\nfour".utf8))

  static let difference = PackageDifference(changes: [
    .added(path: "new.txt", file, patch: TextPatch(from: [], to: Array("x\n".utf8))),
    .deleted(path: "gone", link, patch: nil),
    .modified(
      path: "Index.zip", old: file, new: file, details: [.contents, .permissions], patch: nil,
      nested: PackageDifference(changes: [.typeChanged(path: "inner", old: file, new: link)])),
    .modified(path: "notes.txt", old: file, new: file, details: .contents, patch: patch, nested: nil),
    .renamed(from: "a.txt", to: "b.txt", similarity: 86, old: file, new: file, details: .contents, patch: patch),
    .typeChanged(path: "dir/x", old: file, new: link),
  ])

  static func encode(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  @Test func decodingWhatWasEncodedGivesTheSameDifference() throws {
    let data = try JSONEncoder().encode(Self.difference)
    #expect(try JSONDecoder().decode(PackageDifference.self, from: data) == Self.difference)
  }

  @Test func keysAndValuesFollowTheSchema() throws {
    let rename = try Self.encode(Self.difference[4])
    #expect(rename.hasPrefix(#"{"details":["contents"],"new":{"kind":"file","mode":"0644","#))
    #expect(rename.contains(#","oldPath":"a.txt","patch":"@@ -1,3 +1,4 @@\n one\n-two\n"#))
    #expect(rename.hasSuffix(#""path":"b.txt","similarity":86,"status":"R"}"#))
    #expect(try Self.encode(Self.link) == #"{"kind":"symlink","mode":"0700","size":5,"target":"a/b"}"#)
    #expect(
      try Self.encode(Self.file)
        == #"{"kind":"file","mode":"0644","mtime":"1700000000.000000005","sha256":"\#(Self.file.sha256!)","size":4}"#)
    let document = try Self.encode(Self.difference)
    #expect(document.hasPrefix(#"{"changes":[{"new":{"kind":"file","#))
    #expect(
      document.hasSuffix(
        #"],"counts":{"added":1,"deleted":1,"modified":2,"renamed":1,"typeChanged":1},"identical":false,"version":1}"#))
    #expect(document.contains(#""nested":{"changes":[{"new":{"kind":"symlink","#))
    #expect(document.contains(#""details":["contents","mode"]"#))
    #expect(
      try Self.encode(PackageDifference())
        == #"{"changes":[],"counts":{"added":0,"deleted":0,"modified":0,"renamed":0,"typeChanged":0},"identical":true,"version":1}"#
    )
  }

  @Test func unknownStatusesAndModesAreRefused() {
    for json in [
      #"{"changes":[{"status":"X","path":"a"}]}"#,
      #"{"changes":[{"status":"D","path":"a","old":{"kind":"file","size":1,"mode":"rw"}}]}"#,
      #"{"changes":[{"status":"R","path":"a","old":{"kind":"file","size":1,"mode":"0644"},"new":{"kind":"file","size":1,"mode":"0644"}}]}"#,
    ] {
      #expect(throws: DecodingError.self) { try JSONDecoder().decode(PackageDifference.self, from: Data(json.utf8)) }
    }
  }

  @Test func kindsDetailsAndChangesPrintReadably() {
    #expect("\(Change.Kind.modified)" == "modified")
    #expect(String(describing: Change.Kind.typeChanged) == "typeChanged")
    #expect("\(Change.Details([.contents, .permissions]))" == "[contents, permissions]")
    #expect("\(Change.Details())" == "[]")
    #expect(
      Self.difference.map(\.description) == [
        "A new.txt", "D gone", "M Index.zip [contents, permissions]", "M notes.txt [contents]",
        "R86 a.txt → b.txt [contents]", "T dir/x",
      ])
  }

  @Test func thePayloadsAreReadableWithoutASwitch() {
    let rename = Self.difference[4]
    #expect(rename.kind == .renamed && rename.path == "b.txt" && rename.oldPath == "a.txt" && rename.similarity == 86)
    #expect(Self.difference[0].old == nil && Self.difference[0].new == Self.file && Self.difference[0].oldPath == nil)
    #expect(Self.difference[1].new == nil && Self.difference[1].details.isEmpty)
    #expect(Self.difference[2].nested?.count == 1 && Self.difference[3].patch == Self.patch)
  }
}
