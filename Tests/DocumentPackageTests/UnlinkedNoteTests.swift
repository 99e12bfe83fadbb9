import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// What `pending/unlinked` vouches for: the change times our settles' removals of replaced trees gave package
/// files, and nothing another program did between them. The shape of the case below came from the versions-under-load
/// stress (issue 35 §1): a save linked a file (its status before the link is in its record), a save after it
/// renamed the file into the store, and only then did a settle remove an older tree holding another name of it.
@Suite("the note of our removals")
struct UnlinkedNoteTests {
  static let device: UInt64 = 65024
  static let inode: UInt64 = 16_486_900

  /// A note of two removals of the folder `w2`, the second one still the last (it ends at the note's time, now).
  /// The first found the file at `first` and ended at `firstEnd`; the second found it at `second`.
  static func note(first: FileTime, firstEnd: FileTime, second: FileTime) throws -> (TemporaryDirectory, UnlinkedNote) {
    let folder = try TemporaryDirectory("unlinked-note")
    let seen = { (change: FileTime) in
      PendingVersion.Seen([
        "\(device)", "\(inode)", Substring(FileTime(seconds: 1_796_601_177, nanoseconds: 0).encoded),
        Substring(change.encoded),
      ])!
    }
    var data = UnlinkedNote.batch(path: "w2", seen: [seen(first)], previousEnd: nil)
    data += UnlinkedNote.batch(path: "w2", seen: [seen(second)], previousEnd: firstEnd)
    try folder.write("unlinked", data)
    let note = try #require(
      UnlinkedNote(at: folder.filePath.appending("unlinked"), linking: folder.filePath.appending("linking")))
    return (folder, note)
  }

  static func time(_ offset: Int32) -> FileTime {
    FileTime(seconds: 1_796_601_188, nanoseconds: offset * 1_000_000)
  }

  @Test("what a later save saw before its link is explained by the removals before it, not held to those after")
  func aStatusSeenBeforeALaterRemovalIsVouchedForByTheEarlierOne() throws {
    // The capture at 43 ms; a removal found the file at 4 ms and ended at 130; a save saw it at 128 (the removal's
    // unlink) before linking it; another save renamed it into the store at 322, and a removal after that found it so.
    let (folder, note) = try Self.note(first: Self.time(4), firstEnd: Self.time(130), second: Self.time(322))
    defer { withExtendedLifetime(folder) {} }
    #expect(
      note.vouches(
        for: Self.time(128), device: Self.device, inode: Self.inode, path: "w2/n7.txt", ownChangesEnd: Self.time(43)))
    // The file's status now: both removals' unlinks, after our own changes up to the rename at 322.
    let now = try Syscalls.statusNoFollow(folder.filePath.appending("unlinked")).modificationTime
    #expect(
      note.vouches(for: now, device: Self.device, inode: Self.inode, path: "w2/n7.txt", ownChangesEnd: Self.time(322)))
  }

  @Test("a change between two removals is not taken for either")
  func aChangeAfterARemovalEndedIsNotVouchedFor() throws {
    let (folder, note) = try Self.note(first: Self.time(4), firstEnd: Self.time(130), second: Self.time(322))
    defer { withExtendedLifetime(folder) {} }
    // Seen at 140, after the first removal ended: a `chmod` by another program, which no removal explains.
    #expect(
      !note.vouches(
        for: Self.time(140), device: Self.device, inode: Self.inode, path: "w2/n7.txt", ownChangesEnd: Self.time(43)))
    // The second removal found the file at 322, after that change, with our own changes ending at 43: named.
    let now = try Syscalls.statusNoFollow(folder.filePath.appending("unlinked")).modificationTime
    #expect(
      !note.vouches(for: now, device: Self.device, inode: Self.inode, path: "w2/n7.txt", ownChangesEnd: Self.time(43)))
    // Nor a file the removals never found.
    #expect(
      !note.vouches(
        for: Self.time(128), device: Self.device, inode: Self.inode + 1, path: "w2/n7.txt",
        ownChangesEnd: Self.time(43)))
  }
}
