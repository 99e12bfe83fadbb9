import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `pending/linking`: what our own saves' builds, and recovery's removal of what killed saves left,
/// did to the change times of package files while pending versions waited — written down before
/// they did it.
///
/// A save that builds its new state beside the package hard-links the package's unchanged files into
/// it, which moves their change times; a kill then leaves that tree for recovery, whose removal
/// unlinks those links and moves the change times again. Neither leaves a pending record (the save
/// never swapped), so without this note a later settle could not tell those moves from another
/// program's `chmod` or in-place write with its time set back (``PendingStateWalk``), and had to
/// either name every file the build touched or take any change time for the build's: a change made
/// before the build then went into the version unseen. So the writer notes each entry's status just
/// before its own link or unlink, and the walk takes a change time for ours only when each status
/// noted was itself ours (``UnlinkedNote/vouches(for:device:inode:path:ownChangesEnd:)``, which
/// reads these batches beside the settles' removals).
///
/// Text, appended under the package lock by one writer at a time: a batch per build or recovery,
/// `open TIME`, then `seen DEVICE INODE MTIME CTIME` (``PendingVersion/Seen``) before each link or
/// unlink, then `end TIME` once they are done. Each `TIME` is the note's modification time, set to
/// the file system's clock just before the line is written: `open`'s is after everything the batch
/// before did, so it also ends a batch its writer left open (killed: the next recovery or build
/// opens the next one), and `end`'s is after everything this batch did. A batch still open at the
/// end of the note has no end (its writer is at work, or was killed and nothing has run since).
/// A line cut short, or not of these forms, is skipped: a link or unlink not noted leaves its file's
/// change time unexplained, and the walk names the file. The note goes when no pending version waits.
final class LinkNote {
  /// The note's name in `pending/`.
  static let name = "linking"
  private let fd: CInt
  private var closed = false

  /// Opens a batch in the note of the store's folder `pendingPath` (creating the note); nil when it
  /// cannot be written (then nothing is noted, and the walk names what the writer touches).
  init?(pendingPath: FilePath) {
    guard
      let fd = try? Syscalls.openFile(
        pendingPath.appending(Self.name), [.writeOnly, .create, .append, .noFollow], mode: 0o644)
    else { return nil }
    self.fd = fd
    guard write("open") else {
      closed = true
      return nil
    }
  }

  deinit {
    close()
    Syscalls.closeFile(fd)
  }

  /// Notes the status of an entry just before our own link or unlink of it.
  func announce(_ status: FileStatus) { announce(PendingVersion.Seen(status)) }

  func announce(_ seen: PendingVersion.Seen) {
    guard !closed else { return }
    try? StoreFiles.write(Data("seen \(seen.encoded)\n".utf8), to: fd)
  }

  /// Ends the batch, after its last link or unlink.
  func close() {
    guard !closed else { return }
    closed = true
    _ = write("end")
  }

  /// Writes `KEY TIME`, the note's modification time set to now just before.
  private func write(_ key: String) -> Bool {
    guard (try? Syscalls.setModificationTimeToNow(fd)) != nil, let now = try? Syscalls.status(of: fd).modificationTime
    else { return false }
    return (try? StoreFiles.write(Data("\(key) \(now.encoded)\n".utf8), to: fd)) != nil
  }

  /// The batches of the note `data` (see the type's discussion), as ``UnlinkedNote`` judges them:
  /// each covers the whole package, and one still open ends at ``UnlinkedNote/Batch/open``.
  static func batches(_ data: Data) -> [UnlinkedNote.Batch] {
    var batches: [UnlinkedNote.Batch] = []
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ")
      switch (parts.count, parts.first) {
      case (2, "open"):
        guard let time = FileTime(encoded: parts[1]) else { continue }
        if let last = batches.indices.last, batches[last].end == UnlinkedNote.Batch.open { batches[last].end = time }
        batches.append(UnlinkedNote.Batch(path: "", end: UnlinkedNote.Batch.open))
      case (5, "seen"):
        guard let last = batches.indices.last, batches[last].end == UnlinkedNote.Batch.open,
          let seen = PendingVersion.Seen(Array(parts.dropFirst()))
        else { continue }
        batches[last].seen.append(seen)
      case (2, "end"):
        guard let time = FileTime(encoded: parts[1]), let last = batches.indices.last,
          batches[last].end == UnlinkedNote.Batch.open
        else { continue }
        batches[last].end = time
      default: continue
      }
    }
    return batches
  }

  /// Under the package lock, during recovery: opens a batch noting the files in `leftovers` (in
  /// `parentFD`) that have other names, before recovery removes them, when pending versions wait
  /// in the store `names` names. Its `open` line also ends a batch a killed build left open.
  /// - Returns: What ends the batch once they are removed; nil when nothing needs noting.
  static func noteRemoval(of leftovers: [RawName], _ names: SiblingNames, parentFD: CInt) -> (() -> Void)? {
    let present = leftovers.filter { (try? Syscalls.status(in: parentFD, $0)) != nil }
    guard !present.isEmpty else { return nil }
    let pendingPath = names.path(names.versions).appending("pending")
    guard let listed = try? StoreFiles.names(in: pendingPath), listed.contains(where: { Int($0) != nil }),
      let note = LinkNote(pendingPath: pendingPath)
    else { return nil }
    for leftover in present {
      for status in UnlinkedNote.sharedFiles(under: names.path(leftover)) { note.announce(status) }
    }
    return { note.close() }
  }
}
