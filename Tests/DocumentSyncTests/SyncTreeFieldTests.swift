import DocumentPackage
import Foundation
import Testing

@testable import DocumentSync

/// A remote tree object's lines are split into fields as the version store's are: at spaces, not at Characters
/// (a space followed by a combining mark is one Character; `fuzz-records` found it in the version store's lines).
@Suite struct SyncTreeFieldTests {
  @Test func aTreeObjectKeepsANameAndALinkDestinationBeginningWithACombiningMark() throws {
    let tree = SyncTree(entries: [
      "\u{301}e.txt": SyncEntry(kind: .file, mode: 0o644, size: 3, reference: String(repeating: "ab", count: 32)),
      "link": SyncEntry(kind: .symlink, mode: 0o777, size: 0, reference: "\u{301}e.txt"),
    ])
    #expect(try SyncTree(decoding: tree.encoded(), key: "tree") == tree)
  }
}
