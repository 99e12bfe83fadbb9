// "Is this entry on disk still what was loaded (or recorded)?" — the one rule (read this first).
//
// A model records each entry's `lstat` when it lists it (`DiskOrigin.status`); a version store
// records a file's hash under its stamp (`HashCache`). Later, another `lstat` (or the `fstat` of
// a descriptor a lazy load opened) is compared with the record:
// - another kind, device or inode: the entry was **replaced** (another program's atomic save,
//   a save of ours that built a new subtree, a deletion and a new file of the same name);
// - same inode, but another size or modification time, or other permissions: **modified** in
//   place (a write, a truncation, `touch`, `chmod`). No save of ours writes a file in place: a
//   changed file is a new inode, an unchanged one is hard linked, so the same inode with the same
//   size, time and permissions has the same bytes and attributes as when it was recorded.
//   A directory's size and time change when entries are added, removed or renamed in it: they
//   count when its listing was loaded (the listing is then part of what was loaded), not
//   otherwise (whatever is in a directory never listed is carried over as it is).
// - The rule compares a record with the entry at its path now. A record of an entry since removed
//   says nothing: the file system may have given its inode number to another (ext4 hands out the
//   lowest free one), so undo across our own saves goes by `PackageNode.diskGeneration`, not by it.
// - The change time is not compared: it also moves when a file gains or loses a hard link, which
//   saves, save-to and version stores do to unchanged files all the time. What it would catch
//   besides (a `chmod`, the only change of attributes a save makes in place) is caught by the
//   permissions.
// Saves (`OutsideChangeDetector`), merges (`PackageMerge`), verified lazy loads
// (`PackageNode.verifyLoad`), undo across saves (`PackageNode.restorable`),
// `PackageNode.matchesContents(of:)` and the version store's hash cache (`HashCache.Key` is a
// `DiskStamp`) all ask this.

/// What tells a file's contents apart on disk without reading them: device, inode, size and
/// modification time. Two equal stamps are the same bytes (see the comment above), so the hash
/// cache keys hashes by stamp.
struct DiskStamp: Hashable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var time: FileTime

  init(_ status: FileStatus) {
    self.init(device: status.device, inode: status.inode, size: status.size, time: status.modificationTime)
  }

  init(device: UInt64, inode: UInt64, size: Int64, time: FileTime) {
    self.device = device
    self.inode = inode
    self.size = size
    self.time = time
  }
}

/// How an entry on disk compares with what was recorded of it (see the comment above).
enum DiskComparison: Equatable {
  /// Still what was recorded.
  case unchanged
  /// The same file or directory, changed in place (contents, listing, times or permissions).
  case modified
  /// Another file or directory, or another kind of entry, is at the path now.
  case replaced
}

extension FileStatus {
  /// How this entry (its status now) compares with `recorded`, its status when it was loaded.
  /// - Parameter listing: For a directory, whether its listing was loaded too: then entries added,
  ///   removed or renamed in it (its size and time) count. Files and links always compare their
  ///   contents.
  func compared(with recorded: FileStatus, listing: Bool = false) -> DiskComparison {
    guard kind == recorded.kind, device == recorded.device, inode == recorded.inode else { return .replaced }
    if permissions != recorded.permissions { return .modified }
    if kind != .directory || listing, DiskStamp(self) != DiskStamp(recorded) { return .modified }
    return .unchanged
  }

  /// Whether this entry is still what was recorded as `recorded` (see ``compared(with:listing:)``).
  func isUnchanged(since recorded: FileStatus, listing: Bool = false) -> Bool {
    compared(with: recorded, listing: listing) == .unchanged
  }

  /// Whether this is still the entry recorded as `recorded` (same kind, device and inode), changed
  /// in place or not. A file that is has the recorded bytes unless written in place, which no
  /// save does.
  func isSameEntry(as recorded: FileStatus) -> Bool {
    compared(with: recorded) != .replaced
  }
}

extension Optional where Wrapped == FileStatus {
  /// Whether what is at a path now (`self`, nil for nothing) differs from what was recorded there
  /// (`recorded`, nil for nothing). A directory's listing does not count.
  func differs(from recorded: FileStatus?) -> Bool {
    guard let now = self, let recorded else { return (self == nil) != (recorded == nil) }
    return !now.isUnchanged(since: recorded)
  }
}
