import SystemPackage

/// A committed journaled save (its journal, `.NAME.docpkg-journal`) beside a package, made for a package no longer
/// at its name (nothing is there, or another directory than the one the save began in): the save changed that
/// package part of the way, and only its journal can complete it.
///
/// Recovery takes such a journal as the package's own when the journal's `root` names the package's root (a package
/// renamed in its folder keeps its inode on most file systems). Where inode numbers do not survive a rename (exFAT
/// through FUSE, sshfs), nothing tells whose it is: the package renamed may be this one, part old, part new. So
/// `docpkg check` never calls a package ok beside one: it names the journal and the name it was made for. Renaming
/// the package back to that name and checking it there completes the save; a journal whose package was deleted
/// is removed by hand. The package's own journal is one too when it names another root than the package's
/// (``atThisPackagesName``): its package was moved to another folder or deleted, and another made at its name.
public struct StrandedSave: Hashable, Sendable {
  /// The journal folder.
  public var journal: FilePath
  /// The package's path the journal was made for (nothing is there, or another directory).
  public var packagePath: FilePath
  /// Whether that path is the package's own (the journal at its name): the journal was made for another directory
  /// than the one there now, whose package was moved to another folder or deleted, and this one made or copied at its
  /// name, or for one that was there when nothing is now.
  public var atThisPackagesName: Bool
  /// Whether the package it was found beside may be the one it was made for, copied or renamed: false when
  /// nothing is at that package's path (a package made anew) or that package has a version store of its own,
  /// made for its root (a copy has none; a package renamed where inode numbers do not survive has one that names
  /// another root). Only then is a save there refused, and `check` not ok.
  public var mayBeThePackage: Bool
}
