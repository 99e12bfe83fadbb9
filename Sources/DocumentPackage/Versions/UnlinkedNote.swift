import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `pending/unlinked`: what the settles that removed settled versions' replaced trees while other
/// pending versions waited did to the change times of package files (see
/// `VersionStore.removePending`). Removing a replaced tree unlinks the other name of each file a
/// save carried over by a hard link, which moves that file's change time after the waiting
/// versions' capture times; the note lets ``PendingStateWalk`` take exactly those moves for ours.
///
/// One batch per removal, in the order they were made: the replaced path (escaped, as a line
/// without a space; `%` for the whole package), then a `seen DEVICE INODE MTIME CTIME` line for
/// each file of the replaced tree that had another name, its status just before the unlinks. The
/// next batch starts with `end TIME`, the note's modification time the batch before left (set after
/// its unlinks, so no earlier than any change time they gave); the last batch ends at the note's
/// modification time now. (An earlier release wrote the paths alone: a batch without `seen` lines
/// vouches for nothing, so its files are named, never kept wrong.)
///
/// A change time that only these removals can explain is the file's status at the first removal
/// judged as a change time is judged without removals, and each removal's status before no later
/// than where the removal before ended (``vouches(for:device:inode:path:ownChangesEnd:)``). So a
/// `chmod` or an in-place write with its time set back, made after a capture and before a removal,
/// is named, not taken for the removal's unlink.
struct UnlinkedNote {
  struct Batch {
    var path: String
    var seen: [PendingVersion.Seen] = []
    var end: FileTime

    /// Whether the replaced tree held the package's path `path` (a file below it).
    func covers(_ path: String) -> Bool { self.path.isEmpty || path.hasPrefix(self.path + "/") }
  }

  var batches: [Batch]

  /// Reads the note at `path`; nil when there is none (no removal while versions waited).
  init?(at path: FilePath) {
    guard let data = try? StoreFiles.read(path), let time = try? Syscalls.statusNoFollow(path).modificationTime
    else { return nil }
    batches = []
    var end: FileTime?
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ")
      switch (parts.count, parts.first) {
      case (2, "end"):
        end = FileTime(encoded: parts[1])
      case (5, "seen"):
        guard !batches.isEmpty, let seen = PendingVersion.Seen(Array(parts.dropFirst())) else { continue }
        batches[batches.count - 1].seen.append(seen)
      case (1, _):
        // The batch before ends where this one's `end` line says (or, written by an earlier release
        // without it, at the note's time: its batches have no `seen` lines and vouch for nothing).
        if let end, !batches.isEmpty { batches[batches.count - 1].end = end }
        end = nil
        batches.append(Batch(path: line == "%" ? "" : VersionEscaping.unescape(line), end: time))
      default: continue
      }
    }
    if let end, !batches.isEmpty { batches[batches.count - 1].end = end }
  }

  /// Whether the change time `change` of the file (`device`, `inode`) at the package's `path` is
  /// explained by our own changes up to `ownChangesEnd` followed by these removals' unlinks: each
  /// removal that unlinked another name of it found it with a change time no later than where our
  /// changes had brought it (the end of the removal before, or `ownChangesEnd`), and `change` is no
  /// later than the last one's end. False when no removal unlinked a name of it.
  func vouches(for change: FileTime, device: UInt64, inode: UInt64, path: String, ownChangesEnd: FileTime) -> Bool {
    var bound = ownChangesEnd
    var unlinked = false
    for batch in batches where batch.covers(path) {
      let mine = batch.seen.filter { $0.device == device && $0.inode == inode }
      guard !mine.isEmpty else { continue }
      guard mine.allSatisfy({ $0.change <= bound }) else { return false }  // changed by another hand first
      bound = max(bound, batch.end)
      unlinked = true
    }
    return unlinked && change <= bound
  }

  /// The lines of one batch, after the `end` of the batch before (`previousEnd`, nil: none).
  static func batch(path: String, seen: [PendingVersion.Seen], previousEnd: FileTime?) -> Data {
    var text = previousEnd.map { "end \($0.encoded)\n" } ?? ""
    text += VersionEscaping.escape(path) + "\n"
    for entry in seen { text += "seen \(entry.encoded)\n" }
    return Data(text.utf8)
  }

  /// The status of each file in the replaced tree at `root` that has another name (a package file
  /// a save carried over by a hard link), read before the removal unlinks them. Walked with an
  /// explicit stack, whatever the tree's depth.
  static func sharedFiles(under root: FilePath) -> [PendingVersion.Seen] {
    guard let top = try? Syscalls.statusNoFollow(root) else { return [] }
    guard top.kind == .directory else { return top.kind == .file && top.linkCount > 1 ? [.init(top)] : [] }
    var found: [PendingVersion.Seen] = []
    var stack = [root]
    while let directory = stack.popLast() {
      guard let fd = try? Syscalls.openFile(directory, [.readOnly, .directory, .noFollow]) else { continue }
      defer { Syscalls.closeFile(fd) }
      for entry in (try? Syscalls.entries(ofDirectory: fd)) ?? [] {
        guard let status = try? Syscalls.status(in: fd, entry.name) else { continue }
        if status.kind == .directory, let component = entry.name.component {
          stack.append(directory.appending(component))
        } else if status.kind == .file && status.linkCount > 1 {
          found.append(.init(status))
        }
      }
    }
    return found
  }
}
