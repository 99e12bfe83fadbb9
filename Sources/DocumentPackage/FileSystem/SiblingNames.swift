import SystemPackage

/// The names a save uses beside a package `NAME` in the same parent directory, never inside it
/// (anything inside would be swapped away with the old tree):
///
/// | name                   | what it is                                                                   |
/// |------------------------|------------------------------------------------------------------------------|
/// | `.NAME.docpkg-lock`    | the advisory `flock` lock file, while a writer holds it (see `PackageLock`)  |
/// | `.NAME.docpkg-tmp`     | the new tree while it is built; after the exchange, the old tree being removed |
/// | `.NAME.docpkg-ready`   | the earlier two-rename protocol: the new tree, complete, waiting to be renamed in |
/// | `.NAME.docpkg-old`     | the earlier two-rename protocol: the old package, moved aside                  |
/// | `.NAME.docpkg-versions`| the package's ``VersionStore``: previous states and conflict versions          |
/// | `.NAME.docpkg-journal` | journaled protocol (``SaveJournal``): staged files, then the plan that commits   |
/// | `.NAME.docpkg-probe`   | a try of what the file system can do (``FileSystemTraits``), removed at once     |
/// | `.NAME.docpkg-unsaved` | what a save built, kept when another directory took the place of a package gone mid-save |
/// | `.NAME.docpkg-previous`| the state a save replaced, kept when the save failed and could not put it back  |
///
/// The names are fixed rather than random because only the lock holder saves: any of them found
/// while holding the lock is a leftover of an interrupted save, which ``Recovery`` settles. The last two are
/// the exception: they hold a user's data, are named in the failed save's error (with `-2`, `-3`, … when
/// the name is taken) and are never removed.
struct SiblingNames {
  /// The package's parent directory.
  let parent: FilePath
  /// The package's own name in `parent`.
  let package: RawName
  let lock: RawName
  let temporary: RawName
  let ready: RawName
  let sideline: RawName
  let versions: RawName
  let journal: RawName
  let probe: RawName

  init(of path: FilePath) throws {
    guard let last = path.lastComponent, path.lastComponent?.kind == .regular else {
      throw PackageError(.invalidArgument, "cannot save a package without a name:", path: path.string)
    }
    parent = path.removingLastComponent().isEmpty ? FilePath(".") : path.removingLastComponent()
    package = RawName(last)
    let name = last.string
    lock = RawName(".\(name).docpkg-lock")
    temporary = RawName(".\(name).docpkg-tmp")
    ready = RawName(".\(name).docpkg-ready")
    sideline = RawName(".\(name).docpkg-old")
    versions = RawName(".\(name).docpkg-versions")
    journal = RawName(".\(name).docpkg-journal")
    probe = RawName(".\(name).docpkg-probe")
  }

  /// `name` in the parent directory, for messages.
  func path(_ name: RawName) -> FilePath { parent.appending(name.string) }

  /// Whether `name` is one of the names a package's own entries have beside it, `.NAME.docpkg-…` (its version
  /// store, lock file, journal, temporary trees), under any name the package had.
  static func isSiblingEntry(_ name: String) -> Bool {
    name.hasPrefix(".") && name.contains(".docpkg-")
  }

  /// The package a sibling named `.OWNER.docpkg-SUFFIX` belongs to (`suffix` is `lock`, `journal`, ...); nil for
  /// any other name.
  static func owner(of sibling: RawName, suffix: String) -> RawName? {
    let bytes = sibling.nameBytes
    let tail = Array(".docpkg-\(suffix)".utf8)
    guard bytes.count > tail.count + 1, bytes.first == UInt8(ascii: "."), bytes.suffix(tail.count).elementsEqual(tail)
    else { return nil }
    return RawName(bytes: bytes.dropFirst().dropLast(tail.count))
  }
}
