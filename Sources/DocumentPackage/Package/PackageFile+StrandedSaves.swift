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
