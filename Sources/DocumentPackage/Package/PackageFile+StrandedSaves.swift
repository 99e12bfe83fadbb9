import SystemPackage

extension PackageFile {
  /// The committed saves beside the package at `path` whose packages are not at their names (see ``StrandedSave``),
  /// after ``recover(at:)`` has taken any that is this package's.
  /// - Complexity: One listing of the package's folder, and a look into each such journal.
  public static func strandedSaves(besidePackageAt path: FilePath) throws -> [StrandedSave] {
    let names = try SiblingNames(of: PackageLink.resolve(path))
    let parentFD = try Saver.openParent(names)
    defer { Syscalls.closeFile(parentFD) }
    let stranded = SaveJournal.strandedJournals(for: names, parentFD: parentFD)
    guard !stranded.isEmpty else { return [] }
    let mayBe = mayBeAStrandedPackage(names)
    return stranded.map {
      StrandedSave(
        journal: names.path($0.journal), packagePath: names.path($0.owner),
        atThisPackagesName: $0.owner == names.package,
        mayBeThePackage: mayBe)
    }
  }

  /// Whether the package `names` names may be another one, copied or renamed, part saved (``StrandedSave/mayBeThePackage``).
  private static func mayBeAStrandedPackage(_ names: SiblingNames) -> Bool {
    guard let root = RootIdentity.at(names.path(names.package)) else { return false }
    guard let identity = StoreIdentity.read(from: names.path(names.versions)) else { return true }
    return !identity.matches(root)
  }
}

extension PackageFile {
  /// Under the lock, after recovery, before an in-place save: refuses while a committed save of a package
  /// renamed or removed waits beside this one (``StrandedSave``). This package may be that one, copied or
  /// renamed, part old, part new: a save here would be overwritten when that journal is completed, after the
  /// package is renamed back as `docpkg check` says (outsider attack on issue 35: a `put` into such a copy
  /// exited 0, and the rename back then applied the rest of the old plan over it). A package made anew (by this
  /// object, ``PackageFile/Options/create``), or one with its own history, is not that one, and is saved (R2-3: one such journal stopped every save in its folder).
  /// - Throws: ``PackageError`` with code `corrupt` naming the package and the journal; nothing is changed.
  func refuseSavingBesideStrandedSave() throws {
    guard !created, let save = try Self.strandedSaves(besidePackageAt: path).first(where: \.mayBeThePackage) else {
      return
    }
    throw PackageError(
      .corrupt, "not saving: an unfinished save of a package no longer at its name waits beside", path: path.string,
      context: "in '\(save.journal.string)' (run `docpkg check` on this package for what to do)")
  }
}
