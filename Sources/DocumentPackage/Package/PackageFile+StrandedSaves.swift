import SystemPackage

extension PackageFile {
  /// The committed saves beside the package at `path` whose packages are not at their names (see ``StrandedSave``),
  /// after ``recover(at:)`` has taken any that is this package's.
  /// - Complexity: One listing of the package's folder, and a look into each such journal.
  public static func strandedSaves(besidePackageAt path: FilePath) throws -> [StrandedSave] {
    let names = try SiblingNames(of: PackageLink.resolve(path))
    let parentFD = try Saver.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    return SaveJournal.strandedJournals(for: names, parentFD: parentFD).map {
      StrandedSave(journal: names.path($0.journal), packagePath: names.path($0.owner))
    }
  }
}

extension PackageFile {
  /// Under the lock, after recovery, before an in-place save: refuses while a committed save of a package
  /// renamed or removed waits beside this one (``StrandedSave``). This package may be that one, copied or
  /// renamed, part old, part new: a save here would be overwritten when that journal is completed, after the
  /// package is renamed back as `docpkg check` says (outsider attack on issue 35: a `put` into such a copy
  /// exited 0, and the rename back then applied the rest of the old plan over it).
  /// - Throws: ``PackageError`` with code `corrupt` naming the package and the journal; nothing is changed.
  static func refuseSavingBesideStrandedSave(_ path: FilePath) throws {
    guard let save = try strandedSaves(besidePackageAt: path).first else { return }
    throw PackageError(
      .corrupt, "not saving: an unfinished save of a package no longer at its name waits beside", path: path.string,
      context: "in '\(save.journal.string)' (run `docpkg check` on this package for what to do)")
  }
}
