import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// The journaled save's plan (`SaveJournal`): read back only by recovery, after a kill, so a plan that is not
/// whole and well formed is refused rather than half applied, and a plan's steps can be applied twice.
@Suite("the save journal")
struct SaveJournalTests {
  static let steps: [SaveJournal.Step] = [
    .removeFile([RawName("gone.txt")]),
    .removeDirectory([RawName("old")]),
    .makeDirectory([RawName("new")]),
    .place(0, [RawName("new"), RawName("caf\u{E9}.txt")]),
    .place(1, [RawName(bytes: [0x66, 0xFF, 0x0A][...])]),  // any bytes but '/' and NUL
    .setAttributes([RawName("new")], permissions: 0o750, time: FileTime(seconds: 1_700_000_000, nanoseconds: 5)),
    .setAttributes([], permissions: 0o755, time: nil),
  ]

  static func journal() throws -> SaveJournal {
    SaveJournal(names: try SiblingNames(of: FilePath("/tmp/Doc.pkg")), steps: steps)
  }

  @Test("a plan reads back as written")
  func roundTrip() throws {
    var journal = try Self.journal()
    journal.staged = [
      0: .init(size: 6, sha256: Array(SHA256.hash(data: Array("café\n".utf8)))),
      1: .init(size: 4, sha256: Array(repeating: 7, count: 32)),
    ]
    let plan = SaveJournal.decodePlan(journal.encodedPlan())
    #expect(plan?.steps == Self.steps && plan?.staged == journal.staged)
  }

  @Test("a plan cut short, or with bytes after it, is refused")
  func truncatedOrLonger() throws {
    let plan = try Self.journal().encodedPlan()
    for length in 0..<plan.count { #expect(SaveJournal.decodePlan(Array(plan[..<length])) == nil, "\(length)") }
    #expect(SaveJournal.decodePlan(plan + [0]) == nil)
  }

  @Test("a path that could leave the package is refused", arguments: [".", "..", "a/b", ""])
  func escapingName(_ name: String) throws {
    let journal = SaveJournal(
      names: try SiblingNames(of: FilePath("/tmp/Doc.pkg")), steps: [.removeFile([RawName("x")])])
    // The one component "x" is the plan's last byte before its count of staged digests (0) and its digest, after
    // its length (1).
    var plan = journal.encodedPlan().dropLast(4 + SaveJournal.planDigestSize)
    plan.removeLast(5)
    plan += withUnsafeBytes(of: UInt32(name.utf8.count).littleEndian, Array.init) + Array(name.utf8) + [0, 0, 0, 0]
    #expect(SaveJournal.decodePlan(Array(plan + SHA256.hash(data: plan))) == nil)
  }

  /// Outsider attack 6 on issue 35 (H3): a byte of a name changed (`s.txt` to `a.txt`) decoded well, and recovery
  /// applied the edited plan; its digest now refuses it, as it does any changed byte.
  @Test("a plan with any byte changed is refused")
  func changedByte() throws {
    let plan = try Self.journal().encodedPlan()
    for index in plan.indices {
      var changed = plan
      changed[index] ^= 0x01
      #expect(SaveJournal.decodePlan(changed) == nil, "byte \(index)")
    }
  }

  @Test("an earlier release's plan, without its digest, still reads")
  func earlierRelease() throws {
    // Without the count of staged digests (none here) and the digest.
    let plan = try Self.journal().encodedPlan().dropLast(4 + SaveJournal.planDigestSize).dropFirst(
      SaveJournal.planHeader.count)
    #expect(SaveJournal.decodePlan(SaveJournal.undigestedPlanHeader + plan)?.steps == Self.steps)
  }

  @Test("applied twice, or after a kill half-way, the steps give the same package")
  func idempotent() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Doc.pkg/gone.txt", "gone\n")
    try temp.write("Doc.pkg/old/deep/x.txt", "x\n")
    try temp.write("Doc.pkg/kept.txt", "kept\n")
    let names = try SiblingNames(of: FilePath(temp.path).appending("Doc.pkg"))
    try temp.write(".Doc.pkg.docpkg-journal/0", "café\n")
    try temp.write(".Doc.pkg.docpkg-journal/1", "raw\n")
    let journal = SaveJournal(names: names, steps: Self.steps)
    let parent = try Syscalls.openFile(FilePath(temp.path), [.readOnly, .directory])
    defer { Syscalls.closeFile(parent) }
    for _ in 0..<2 { try journal.applyJournal(parentFD: parent) }
    let entries = try FileManager.default.subpathsOfDirectory(atPath: temp.path + "/Doc.pkg").sorted()
    #expect(entries.count == 4 && entries.contains("kept.txt") && entries.contains("new/caf\u{E9}.txt"), "\(entries)")
    #expect(try String(contentsOfFile: temp.path + "/Doc.pkg/new/caf\u{E9}.txt", encoding: .utf8) == "café\n")
    #expect(!FileManager.default.fileExists(atPath: temp.path + "/Doc.pkg/old"))
    #expect(!FileManager.default.fileExists(atPath: temp.path + "/Doc.pkg/gone.txt"))
    let mode = try FileManager.default.attributesOfItem(atPath: temp.path + "/Doc.pkg/new")[.posixPermissions] as? Int
    #expect(mode == 0o750)
  }
}
