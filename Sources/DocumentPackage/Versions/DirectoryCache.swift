import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tree objects of directories already kept, by the directory's device, inode and
/// modification time (`dirs` in the store), so that keeping a version lists only directories
/// whose entries changed: a save never changes a file in place (it renames a new one in, which
/// changes the directory's time), so a directory with the same inode and time has the same
/// entries. Its subdirectories are still checked one `lstat` each, since their changes do not
/// show in their parent's time. Keeping a version of the `many` corpus (100,000 files in 1,000
/// directories) after a one-file save thus costs about 1,000 `lstat`s instead of 100,000.
///
/// Like the blobs, this trusts that programs other than ours replace files rather than rewrite
/// them in place. Removing versions drops the cache (their blobs may be gone). Each line ends with
/// a check of the rest of it, as the hash cache's do: a damaged or edited line is not believed
/// (the directory is listed again).
///
/// Only where a directory's time moves with its entries: not on FAT and exFAT, whose FUSE drivers
/// leave a folder's time as it was when a file is renamed into it or removed from it (a version
/// kept from the cache then missed the file, or held a removed one), nor on network and FUSE file
/// systems in general, whose servers decide. There every directory is listed.
struct DirectoryCache {
  struct Entry {
    var tree: String
    var size: Int64
    /// The subdirectories' names and tree hashes.
    var subdirectories: [(name: String, tree: String)]
  }

  let path: FilePath
  private var known: [HashCache.Key: Entry] = [:]
  private(set) var used: [HashCache.Key: Entry] = [:]

  /// - Parameters:
  ///   - path: The cache's file in the store.
  ///   - package: The package whose directories it describes: on a file system whose directory
  ///     times do not follow their entries, nothing is read from the cache.
  init(path: FilePath, package: FilePath) {
    self.path = path
    guard Self.timesFollowEntries(in: package), let data = try? StoreFiles.read(path) else { return }
    for checked in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      guard let line = HashCache.verified(checked) else { continue }
      let parts = VersionEscaping.fields(line)
      guard parts.count >= 5, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
        let time = FileTime(encoded: parts[2]), let size = Int64(parts[3]), ContentHash.isValid(parts[4])
      else { continue }
      let key = HashCache.Key(device: device, inode: inode, size: 0, time: time)
      let rest = Array(parts.dropFirst(5))
      guard rest.count % 2 == 0 else { continue }
      let subdirectories = stride(from: 0, to: rest.count, by: 2).map {
        (name: VersionEscaping.unescape(rest[$0]), tree: String(rest[$0 + 1]))
      }
      known[key] = Entry(tree: String(parts[4]), size: size, subdirectories: subdirectories)
    }
  }

  /// Whether a directory's modification time moves whenever its entries change on the package's
  /// file system: not on FUSE or network file systems (``Syscalls/fileSystemsChangedElsewhere``), nor
  /// on FAT and exFAT whatever their driver.
  static func timesFollowEntries(in package: FilePath) -> Bool {
    guard let type = try? Syscalls.fileSystemType(ofDirectory: package) else { return false }
    let fatFamily: Set<Int64> = [0x4D44, 0x2011_BAB0]  // MSDOS_SUPER_MAGIC, EXFAT_SUPER_MAGIC
    return Syscalls.fileSystemsChangedElsewhere[type] == nil && !fatFamily.contains(type)
  }

  static func key(_ status: FileStatus) -> HashCache.Key {
    HashCache.Key(device: status.device, inode: status.inode, size: 0, time: status.modificationTime)
  }

  func entry(for status: FileStatus) -> Entry? { known[Self.key(status)] }

  mutating func note(_ status: FileStatus, _ entry: Entry) { used[Self.key(status)] = entry }

  /// Rewrites the cache with the directories of this version only (best effort), except those
  /// whose entries changed just now (see ``HashCache/settledAfter``).
  func save(temporary: FilePath) {
    var text = ""
    let now = FileTime(Date())
    for (key, entry) in used where HashCache.isSettled(key.time, now: now) {
      var line = "\(key.device) \(key.inode) \(key.time.encoded) \(entry.size) \(entry.tree)"
      for (name, tree) in entry.subdirectories { line += " " + VersionEscaping.escape(name) + " " + tree }
      text += HashCache.checked(line) + "\n"
    }
    try? StoreFiles.writeAtomically(Data(text.utf8), to: path, temporary: temporary)
  }
}
