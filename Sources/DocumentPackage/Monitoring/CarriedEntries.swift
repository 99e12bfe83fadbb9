/// What a save put, straight from disk, into the directories its model never listed: each such
/// directory (by its path in the package) with the name and inode of every entry it holds.
///
/// A save carries a directory the model never listed by walking the disk (``TreeBuilder``: hard
/// links for files, new directories), and the model, not having listed it, cannot say afterwards
/// what the save put there. When another program changes such a directory right after the save,
/// before the monitor compared the save's burst (a `docpkg put` into a folder just saved, the
/// new directory not watched yet), the monitor lists the new subtree and reports the other
/// program's entry with the save's. This record tells them apart, exactly, as ``OwnSaves`` tells
/// a save's placements from other entries: an entry at a carried path whose inode is the one the
/// save gave it (nothing there where the save put nothing) is the save's; another inode, a name
/// the save did not carry, or a directory the save did not carry on the way, is another program's.
///
/// Made by ``TreeBuilder``, kept with the placement in ``OwnSaves``, handed by the monitor with
/// the event that claims the placement (`PackageMonitor.Event.carried`), and read by
/// `Document+HeldChanges`.
package struct CarriedEntries: Sendable, Hashable {
  /// Path of a carried directory in the package (`F/H`) → entry name → the inode the save gave it.
  private var directories: [String: [String: UInt64]] = [:]
  /// How many directories and entries are recorded (what ``OwnSaves`` keeps is bounded by it).
  private(set) var count = 0

  package init() {}

  /// Records the directory at `path` as carried by the save (also when it is empty).
  mutating func recordDirectory(_ path: String) {
    guard directories[path] == nil else { return }
    directories[path] = [:]
    count += 1
  }

  /// Records the entry `name` of the carried directory `directory`, with the inode the save gave it.
  mutating func record(_ name: String, inode: UInt64, in directory: String) {
    if directories[directory, default: [:]].updateValue(inode, forKey: name) == nil { count += 1 }
  }

  /// Each carried directory's path in the package with the entries the save put in it (name → inode), by path.
  var byDirectory: [(path: String, entries: [String: UInt64])] {
    directories.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) }
  }

  /// Both records; for a directory in both, `later`'s (a later save placed it again).
  func merging(_ later: CarriedEntries) -> CarriedEntries {
    var merged = self
    for (directory, entries) in later.directories {
      if let earlier = merged.directories.updateValue(entries, forKey: directory) {
        merged.count -= earlier.count + 1
      }
      merged.count += entries.count + 1
    }
    return merged
  }

  /// Whether the entry at `path` (in the package) is what the save put there: `inode` is the
  /// entry's inode now, nil for nothing there.
  /// - Returns: true if it is the save's (nothing there where the save put nothing); false if
  ///   another program's (another inode, a name the save did not put in that directory, or an
  ///   entry under a directory the save did not carry); nil when
  ///   no directory the save carried holds `path`, and this record cannot say.
  /// - Complexity: O(*d*) for a path *d* deep.
  func isSaved(_ path: String, inode: UInt64?) -> Bool? {
    let (folder, name) = Self.split(path)
    if let entries = directories[folder] { return entries[name] == inode }
    // Not a directory the save carried: if one holds it, the save put nothing there.
    var above = folder
    while !above.isEmpty {
      above = Self.split(above).folder
      if directories[above] != nil { return inode == nil }
    }
    return nil
  }

  /// The folder of `path` (`""` for the package) and its last component.
  private static func split(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
  }
}
