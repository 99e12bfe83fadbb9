import ArgumentParser
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

/// `docpkg check PACKAGE [--full]`: settles an interrupted save, verifies the package can be read
/// and that every version in its store can be read back whole.
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Recover an interrupted save and verify a package.",
    discussion: """
      Removes what an interrupted save left beside the package and, if the package itself is missing, \
      moves the complete new state (or the previous one) back in; names a committed save of a package no longer at \
      its name, whose journal waits beside this one (this package may be that one renamed, part old, part new); \
      then lists every directory of the package. \
      Then checks the version store beside it: every tree object, and every blob against its SHA-256 (a blob \
      that matched before and whose size, inode and time did not change since is not read again; --full \
      reads them all). Prints what it did and each damaged version with its damaged entries, each version \
      record that is damaged or cannot be read, and each pending version that cannot be settled (with the \
      reason). A version a pull kept with files left on its remote is checked for what the store holds; a line \
      says how many files are on the remote (remote fetch downloads them). Exits 0 when the package and all its versions are consistent, 1 otherwise.
      """
  )

  @Argument(help: "The package.", completion: .file())
  var package: String

  @Flag(help: "Read every blob of the version store, not only those not verified before.")
  var full = false

  func run() throws {
    let out = StandardOutput.shared
    let actions = try PackageFile.recover(at: FilePath(package))
    for action in actions {
      out.write("recovered: \(action.description) \(action.path.escapingControlCharacters)\n")
    }
    // Said before the package is read: its own journal may wait for a package no longer here (nothing is, then).
    let beside = try PackageFile.strandedSaves(besidePackageAt: FilePath(package))
    if actions.isEmpty && beside.isEmpty { out.write("nothing to recover\n") }
    for save in beside { out.write(Self.line(for: save)) }
    var files: Int64 = 0, directories: Int64 = 0, links: Int64 = 0, bytes: Int64 = 0
    let root = try PackageNode(contentsOf: FilePath(package))
    try root.walk { node, path, _ in
      switch node.kind {
      case .file:
        files += 1
        bytes += node.size
      case .directory: if !path.isEmpty { directories += 1 }
      case .symlink: links += 1
      }
      return true
    }
    guard !beside.contains(where: \.mayBeThePackage) else {
      throw PackageError(
        .corrupt, "not ok: an unfinished save of a package renamed, moved or removed waits beside", path: package)
    }
    out.write(
      "ok: \(package.escapingControlCharacters): \(files.grouped) files, \(directories.grouped) directories, "
        + "\(links.grouped) symbolic links, \(bytes.grouped) bytes\n")
    try checkVersions(out)
  }

  /// The line naming a committed save beside the package whose package is not at its name (``StrandedSave``):
  /// `unfinished` when this package may be that one, else a note.
  private static func line(for save: StrandedSave) -> String {
    let journal = save.journal.string.escapingControlCharacters
    let owner = save.packagePath.string.escapingControlCharacters
    switch (save.atThisPackagesName, save.mayBeThePackage) {
    case (true, true):
      return "unfinished: a committed save waits in '\(journal)', made for another directory than the one now at "
        + "'\(owner)' (that package was moved to another folder or deleted, and this one made or copied here: if it "
        + "is a copy, it is part old, part new): move this one aside and that package back here under this name and "
        + "check it; if it was deleted, remove the journal\n"
    case (true, false):
      return "note: a committed save waits in '\(journal)', made for another directory than the one now at "
        + "'\(owner)' (that package was moved to another folder or deleted): move it back here under this name and "
        + "check it, or remove the journal if it was deleted\n"
    case (false, true):
      return "unfinished: a committed save of '\(owner)' waits in '\(journal)', and that package is not at that name: "
        + "if this package is it, renamed or copied, it is part old, part new (rename it back and check it there to "
        + "complete the save); if that package was moved to another folder, move it back here under that name and "
        + "check it; if it was deleted, remove the journal\n"
    case (false, false):
      return "note: a committed save of '\(owner)' waits in '\(journal)', and that package is not at that name (this "
        + "package is not it: its version store names its root); move that package back under that name and check "
        + "it, or remove the journal if it was deleted\n"
    }
  }

  /// Checks the version store, if the package has one; throws after listing damaged versions,
  /// damaged records and versions that cannot be settled, one line each.
  private func checkVersions(_ out: StandardOutput) throws {
    let store = try VersionStore(forPackageAt: FilePath(package))
    let damaged = try store.damagedVersions(thorough: full)
    let unsettled = try store.versionProblems().filter { $0.state == .pending }
    let versions = try store.versions()
    guard !versions.isEmpty || !damaged.isEmpty || !unsettled.isEmpty else { return }
    for damage in damaged {
      for problem in damage.problems {
        out.write("damaged: version \(damage.id): \(problem.escapingControlCharacters)\n")
      }
    }
    for problem in unsettled {
      out.write("not settled: version \(problem.id): \(problem.description.escapingControlCharacters)\n")
    }
    let failed = Set(damaged.map(\.id) + unsettled.map(\.id)).sorted()
    guard failed.isEmpty else {
      let total = Set(versions.map(\.id) + failed).count
      throw PackageError(
        .corrupt,
        "\(failed.count) of \(total) versions damaged\(unsettled.isEmpty ? "" : " or not settled") "
          + "(\(failed.map { String($0) }.joined(separator: ", "))) in",
        path: store.path.string)
    }
    for held in try VersionStore.remoteHeldVersions(ofPackageAt: FilePath(package), listingFiles: true)
    where !held.unfetched.isEmpty {
      out.write(
        "on remote: version \(held.id): \(held.unfetched.count) files on '\(held.remote.escapingControlCharacters)'\n")
    }
    let discarded = store.discardDamagedHashCacheLines()
    if discarded > 0 {
      out.write(
        "repaired: \(discarded) damaged line\(discarded == 1 ? "" : "s") of the hash cache discarded "
          + "(its files are read again): \(store.path.appending("hashes").string.escapingControlCharacters)\n")
    }
    out.write("ok: \(versions.count) versions\n")
  }
}
