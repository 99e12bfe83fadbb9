import SystemPackage

/// Where recovery has work: a package, or what an interrupted save left of one.
extension Recovery {
  /// Fails before a lock file is made beside a package that is not there, or beside a file that
  /// is not a package (a package is a directory: `docpkg put A.mydoc/Text.txt …` must not lock
  /// inside `A.mydoc`). A save's sideline or ready tree without the package still counts as a
  /// package: recovery moves it back. With `orAnyLeftover`, so does a temporary tree, which
  /// recovery removes. With `orNothing`, so does nothing at all (a package to create).
  static func requirePackage(at path: FilePath, orAnyLeftover: Bool = false, orNothing: Bool = false) throws {
    if let status = try statusIfPresent(path) {
      if status.kind == .directory
        || (status.kind == .symlink && (try? Syscalls.statusFollowing(path))?.kind == .directory)
      {
        return
      }
      throw PackageError(.notADirectory, "not a package (a package is a directory):", path: path.string)
    }
    if orNothing { return }
    let names = try SiblingNames(of: path)
    let leftovers =
      orAnyLeftover
      ? [names.journal, names.ready, names.sideline, names.temporary] : [names.journal, names.ready, names.sideline]
    for leftover in leftovers where try statusIfPresent(names.path(leftover)) != nil { return }
    throw PackageError(.noSuchEntry, "no such package", path: path.string)
  }

  /// Whether an interrupted save left something beside the package (recovery has work to do),
  /// under its name or, for a journal, under the name the package had before it was renamed.
  /// - Complexity: A few `lstat`s, and one listing of the package's folder.
  static func hasLeftovers(_ path: FilePath) throws -> Bool {
    let names = try SiblingNames(of: path)
    for leftover in [names.journal, names.probe, names.ready, names.sideline, names.temporary]
    where try statusIfPresent(names.path(leftover)) != nil {
      return true
    }
    guard let parentFD = try? Syscalls.openFile(names.parent, [.readOnly, .directory]) else { return false }
    defer { Syscalls.closeFile(parentFD) }
    return SaveJournal.movedJournal(for: names, parentFD: parentFD) != nil
  }

  /// What `lstat` says about `path`, `nil` if nothing is there.
  static func statusIfPresent(_ path: FilePath) throws -> FileStatus? {
    do { return try Syscalls.statusNoFollow(path) } catch .noSuchFileOrDirectory { return nil } catch {
      throw PackageError.io(error, "cannot look at", path: path)
    }
  }

  /// Recovers the package at `path` (see the type's discussion); the caller holds its lock.
  static func recover(packageAt path: FilePath, keeper: (any ReplacedStateKeeper.Type)?) throws -> [RecoveryAction] {
    let names = try SiblingNames(of: path)
    let parent = try Saver.openParent(names)
    defer { Syscalls.closeFile(parent) }
    return try recover(names, parentFD: parent, keeper: keeper)
  }
}
