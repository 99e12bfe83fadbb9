import SystemPackage

// A package replaced by a different one (read with `Document+OutsideChanges`, point 1).
//
// Another program can put a different directory at the document's path: `rm -rf P; mv Other P`,
// `mv P P.old; mv Other P`, an exchange of the two, or a program that saves by writing a whole
// new directory over the package. A save of this library replaces the root too (any process's),
// but it records the root it puts in place in the version store beside the package, before the
// swap (`StoreIdentity`, its pending root). So a directory at ``Document/path`` that is neither
// the root the document loaded or last saved, nor the one the store names, was put there by
// something else: the document cannot tell it for a later state of its own package. It neither
// merges into it nor saves over it: the package is gone as far as the document is concerned — the
// state gains `deleted`, saving in place fails saying the package was replaced, and what the
// document holds is saved elsewhere with `save(to:)` (or `revert()` opens what is there now). The
// same holds whether the document watches (the monitor reports `packageReplaced`), reads an entry
// it had not loaded yet (the load meets the new root), or saves, saves merging or checks for
// outside changes without having watched. A package with no version store (never saved by this
// library with versions kept) has no record. Then the package's lock tells: a save replaces the root
// only while holding it, and a writer of this library that holds it now (`PackageFile`'s `holdLock`,
// saving again and again with versions off, as `read-write-stress` does) is taken to have made the new
// root — else a reader meeting such a save would take it for a stranger's replacement. With no
// record and no writer at work, a new root counts as replaced: a save with versions off, finished
// and its lock dropped, leaves nothing a reader could tell from another package moved there.
extension Document {
  /// Whether the directory at ``path`` is not the document's package (see the comment above);
  /// false when nothing is there (a deletion) and for a read-only document.
  ///
  /// The record and the root are read as one: the record before and after the root, until no save changed the
  /// record in between (a save records its new root before its swap and again after it, so a root read between
  /// two equal records is one of the roots they name). Another process saving in a loop could otherwise move the
  /// record past the root read a moment before.
  var packageReplacedByAnother: Bool {
    guard let loaded = package?.root.loadedRootIdentity, let root = RootIdentity.at(path), !root.isSame(as: loaded)
    else { return false }
    guard let names = try? SiblingNames(of: path) else { return true }
    let store = names.path(names.versions)
    for _ in 0..<Self.identityReadAttempts {
      let before = StoreIdentity.read(from: store)
      guard let now = RootIdentity.at(path) else { return false }
      let after = StoreIdentity.read(from: store)
      guard before == after else { continue }  // a save recorded a root meanwhile: read again
      guard let after else { return !PackageLock.isHeld(names) }  // no record: a writer at work made it
      return !after.matches(now)
    }
    return false  // saves of this library the whole time: the package is being saved, not replaced
  }

  /// How many times ``packageReplacedByAnother`` reads the record and the root before it takes saves that keep
  /// changing the record for this library's own.
  private static var identityReadAttempts: Int { 20 }
}
