import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `pending/unlinked`: what the settles that removed settled versions' replaced trees while other
/// pending versions waited did to the change times of package files (see
/// `VersionStore.removePending`); read with the batches of `pending/linking`, what our builds'
/// links and recovery's removals did to them (``LinkNote``). Removing a replaced tree unlinks the other name of each file a
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

    /// The end of a batch of ``LinkNote`` still open: its links may have moved change times up to now.
    static let open = FileTime(seconds: .max)
  }

  let batches: [Batch]
  /// The indices in `batches` of those that found each inode.
  private let byInode: [UInt64: [Int]]

  /// Reads the note at `path`, and the batches of our builds' links and recovery's removals in the
  /// ``LinkNote`` at `linking`; nil when there is neither (nothing of ours moved a change time
  /// while versions waited, but the saves recorded).
  init?(at path: FilePath, linking: FilePath) {
    let linked = (try? StoreFiles.read(linking)).map(LinkNote.batches) ?? []
    let removals: [Batch]
    if let data = try? StoreFiles.read(path), let time = try? Syscalls.statusNoFollow(path).modificationTime {
      removals = Self.removals(data, time: time)
    } else {
      guard !linked.isEmpty else { return nil }
      removals = []
    }
    batches = removals + linked
    var byInode: [UInt64: [Int]] = [:]
    for (number, batch) in batches.enumerated() {
      for inode in Set(batch.seen.map(\.inode)) { byInode[inode, default: []].append(number) }
    }
    self.byInode = byInode
  }

  /// The batches of `pending/unlinked`, whose modification time is `time`.
  private static func removals(_ data: Data, time: FileTime) -> [Batch] {
    var batches: [Batch] = []
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
    return batches
  }

  /// Whether the change time `change` of the file (`device`, `inode`) at the package's `path` is
  /// explained by our own changes up to `ownChangesEnd` followed by these removals' unlinks: each
  /// removal that unlinked another name of it found it with a change time no later than where our
  /// changes had brought it (the end of the removal before, or `ownChangesEnd`), and `change` is no
  /// later than the last one's end. False when no removal unlinked a name of it.
  ///
  /// The removals' batches and those of ``LinkNote`` (our builds' links, recovery's removals) come
  /// from two notes, written under two locks, so their order is not known: a batch is taken once
  /// what it found is explained by our changes and the batches taken before it, until no more can
  /// be (a change another program made between two of them shows in the next one's status, which
  /// no batch that ended before it explains). Every batch that found the file at a change time not
  /// after `change` must be taken. One that found it later came after `change` was given (a change
  /// time is the clock's at the change, never set by hand), so it has nothing to explain: `change` may
  /// be what a later save saw before its own link (``PendingVersion/Seen``), and a removal after that
  /// save found the file as the save's link left it.
  func vouches(for change: FileTime, device: UInt64, inode: UInt64, path: String, ownChangesEnd: FileTime) -> Bool {
    var left = (byInode[inode] ?? []).map { batches[$0] }.filter { $0.covers(path) }.map { batch in
      (seen: batch.seen.filter { $0.device == device && $0.inode == inode && $0.change <= change }, end: batch.end)
    }.filter { !$0.seen.isEmpty }
    guard !left.isEmpty else { return false }
    var bound = ownChangesEnd
    while let next = left.firstIndex(where: { $0.seen.allSatisfy { $0.change <= bound } }) {
      bound = max(bound, left[next].end)
      left.remove(at: next)
    }
    return left.isEmpty && change <= bound  // else changed by another hand before one of them
  }

  /// The lines of one batch, after the `end` of the batch before (`previousEnd`, nil: none).
  static func batch(path: String, seen: [PendingVersion.Seen], previousEnd: FileTime?) -> Data {
    var text = previousEnd.map { "end \($0.encoded)\n" } ?? ""
    text += VersionEscaping.escape(path) + "\n"
    for entry in seen { text += "seen \(entry.encoded)\n" }
    return Data(text.utf8)
  }

  /// The status of each file or symbolic link in the tree at `root` that has another name (a package
  /// entry a save carried over by a hard link), read before the removal unlinks them. Walked relative to
  /// the descriptors of the folders open on the way down (an explicit stack), so that neither the
  /// tree's depth nor its paths' length limits it.
  static func sharedFiles(under root: FilePath) -> [PendingVersion.Seen] {
    guard let top = try? Syscalls.statusNoFollow(root) else { return [] }
    guard top.kind == .directory else { return top.kind != nil && top.linkCount > 1 ? [.init(top)] : [] }
    guard let rootFD = try? Syscalls.openFile(root, [.readOnly, .directory, .noFollow]) else { return [] }
    var found: [PendingVersion.Seen] = []
    var stack: [(fd: CInt, folders: [RawName])] = []
    defer { for level in stack { Syscalls.closeFile(level.fd) } }
    var next: CInt? = rootFD
    while true {
      if let fd = next {
        var folders: [RawName] = []
        for entry in (try? Syscalls.entries(ofDirectory: fd)) ?? [] {
          guard let status = try? Syscalls.status(in: fd, entry.name) else { continue }
          if status.kind == .directory {
            folders.append(entry.name)
          } else if status.kind != nil && status.linkCount > 1 {
            found.append(.init(status))
          }
        }
        stack.append((fd, folders))
      }
      guard let top = stack.indices.last else { return found }
      guard let folder = stack[top].folders.popLast() else {
        Syscalls.closeFile(stack.removeLast().fd)
        next = nil
        continue
      }
      next = try? Syscalls.openFile(in: stack[top].fd, folder, [.readOnly, .directory, .noFollow])
    }
  }
}
